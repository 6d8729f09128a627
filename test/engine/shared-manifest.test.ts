import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../src/engine/events.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import type { FakeGeminiRequest } from '../../src/offline/fake-gemini.js';
import { geminiConfig, geminiEngine, git, useFakeGemini } from '../helpers/gemini-engine.js';
import { useTempDirs } from '../helpers/tmp.js';
import { atRoot, isIntegration, isTask, promptRole } from '../helpers/prompts.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
const startFake = useFakeGemini();

const BASE = { name: 'tool', version: '1.0.0', dependencies: { commander: '^14.0.0' } };
const manifest = (deps: Record<string, string>) =>
  `${JSON.stringify({ ...BASE, dependencies: { ...BASE.dependencies, ...deps } }, null, 2)}\n`;

/** Two subtasks, each adding a dependency to package.json and a module of its own. */
function model(request: FakeGeminiRequest) {
  const p = request.prompt;
  const role = promptRole(request);
  if (role === 'minimal')
    return {
      text: JSON.stringify({ minimal: !atRoot(p), reason: 'x' }),
    };
  if (role === 'split')
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
  if (role === 'ballot' || role === 'blame')
    return { text: JSON.stringify({ choice: 'A', reason: 'x' }) };
  if (role === 'review')
    return { text: JSON.stringify({ verdict: 'ok', confidence: 0.9, reason: 'fine' }) };
  const colour = isTask(p, 'Colour the output');
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
    const fake = await startFake(model);
    const dir = await tempDir();
    git(dir, 'init', '-q', '-b', 'main');
    await writeFile(join(dir, 'package.json'), manifest({}));
    git(dir, 'add', '.');
    git(dir, '-c', 'user.name=p', '-c', 'user.email=p@x', 'commit', '-q', '-m', 'base');
    const workspace = await openWorkspace(dir, false, workspaceSettings({}));
    const events: EngineEvent[] = [];
    const engine = geminiEngine(dir, workspace, fake, {
      journal: (event) => void events.push(event),
    });
    const runId = await engine.create('a tool', geminiConfig);
    const outcome = await engine.run(runId);
    expect(outcome.error).toBeUndefined();
    expect(outcome.status).toBe('done');
    expect(events.filter((e) => e.type === 'merge-conflict')).toEqual([]);
    expect(fake.requests.some((r) => isIntegration(r.prompt))).toBe(false);
    expect(JSON.parse(git(dir, 'show', 'main:package.json'))).toEqual({
      ...BASE,
      dependencies: { commander: '^14.0.0', chalk: '^5.3.0', yaml: '^2.5.0' },
    });
    expect(git(dir, 'show', 'main:src/input.js')).toContain('yaml');
  });
});
