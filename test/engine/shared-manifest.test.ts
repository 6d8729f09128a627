import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GeminiModel } from '../../src/adapters/gemini/gemini-model.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { LlmPlanner } from '../../src/engine/llm-planner.js';
import { LlmWorker } from '../../src/engine/llm-worker.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import type { EngineEvent } from '../../src/engine/events.js';
import { openWorkspace } from '../../src/surfaces/wiring.js';
import {
  startFakeGemini,
  type FakeGemini,
  type FakeGeminiRequest,
} from '../../src/testing/fake-gemini.js';
import { baseConfig } from '../helpers/engine.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();

const BASE = { name: 'tool', version: '1.0.0', dependencies: { commander: '^14.0.0' } };
const manifest = (deps: Record<string, string>) =>
  `${JSON.stringify({ ...BASE, dependencies: { ...BASE.dependencies, ...deps } }, null, 2)}\n`;

/** Two subtasks, each adding a dependency to package.json and a module of its own. */
function model(request: FakeGeminiRequest) {
  const p = request.prompt;
  if (p.includes('Is this task minimal'))
    return {
      text: JSON.stringify({ minimal: !p.includes('Decomposition depth: 0'), reason: 'x' }),
    };
  if (p.includes('Split this task'))
    return {
      text: JSON.stringify({
        subtasks: [
          {
            title: 'Colour the output',
            description: 'Use chalk in src/colour.js.',
            acceptance: ['chalk is a dependency'],
            files: ['src/colour.js', 'package.json'],
            dependsOn: [],
          },
          {
            title: 'Read YAML input',
            description: 'Use yaml in src/input.js.',
            acceptance: ['yaml is a dependency'],
            files: ['src/input.js', 'package.json'],
            dependsOn: [],
          },
        ],
        ambiguity: null,
      }),
    };
  if (p.includes('"choice"')) return { text: JSON.stringify({ choice: 'A', reason: 'x' }) };
  if (p.includes('A proposal for this task'))
    return { text: JSON.stringify({ verdict: 'ok', confidence: 0.9, reason: 'fine' }) };
  const colour = p.includes('Task: Colour the output');
  return {
    text: JSON.stringify({
      files: colour
        ? [
            { path: 'package.json', content: manifest({ chalk: '^5.3.0' }) },
            { path: 'src/colour.js', content: "import chalk from 'chalk';\n" },
          ]
        : [
            { path: 'package.json', content: manifest({ yaml: '^2.5.0' }) },
            { path: 'src/input.js', content: "import YAML from 'yaml';\n" },
          ],
      summary: 'x',
    }),
  };
}

describe('a shared manifest', () => {
  it('two subtasks that both add a dependency to package.json merge without a conflict', async () => {
    fake = await startFakeGemini(model);
    const dir = await tempDir();
    git(dir, 'init', '-q', '-b', 'main');
    await writeFile(join(dir, 'package.json'), manifest({}));
    git(dir, 'add', '.');
    git(dir, '-c', 'user.name=p', '-c', 'user.email=p@x', 'commit', '-q', '-m', 'base');
    const workspace = await openWorkspace(dir, false, {});
    const gemini = new GeminiModel({
      model: 'gemini-2.5-flash',
      apiKey: ['AIza', 'K'.repeat(35)].join(''),
      baseUrl: fake.baseUrl,
      attempts: 1,
    });
    const events: EngineEvent[] = [];
    const engine = new MakerEngine({
      workspace,
      roles: { planner: new LlmPlanner(gemini), worker: new LlmWorker(gemini, workspace) },
      store: makerStateFile(dir),
      journal: (event) => void events.push(event),
    });
    const runId = await engine.create('a tool', {
      ...baseConfig,
      worker: 'gemini',
      planner: 'gemini',
      model: 'gemini-2.5-flash',
      maxDepth: 1,
    });
    const outcome = await engine.run(runId);
    expect(outcome.error).toBeUndefined();
    expect(outcome.status).toBe('done');
    expect(events.filter((e) => e.type === 'merge-conflict')).toEqual([]);
    expect(fake.requests.some((r) => r.prompt.includes('Task: Integrate'))).toBe(false);
    expect(JSON.parse(git(dir, 'show', 'main:package.json'))).toEqual({
      ...BASE,
      dependencies: { commander: '^14.0.0', chalk: '^5.3.0', yaml: '^2.5.0' },
    });
    expect(git(dir, 'show', 'main:src/input.js')).toContain('yaml');
  });
});
