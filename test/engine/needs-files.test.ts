import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { GeminiModel } from '../../src/adapters/gemini/gemini-model.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { LlmPlanner } from '../../src/engine/llm-planner.js';
import { LlmWorker } from '../../src/engine/llm-worker.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
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

/**
 * A plan whose second subtask cannot be done in its files alone: its worker asks for
 * package.json (to add a bin entry) until its list holds it.
 */
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
            title: 'Write the manifest',
            description: 'package.json for the tool.',
            acceptance: ['package.json names the tool'],
            files: ['package.json'],
            dependsOn: [],
          },
          {
            title: 'Write the CLI',
            description: 'src/cli.js, runnable as the tool command.',
            acceptance: ['the tool command runs src/cli.js'],
            files: ['src/cli.js'],
            dependsOn: [0],
          },
        ],
        ambiguity: null,
      }),
    };
  if (p.includes('"choice"')) return { text: JSON.stringify({ choice: 'A', reason: 'x' }) };
  if (p.includes('A proposal for this task'))
    return { text: JSON.stringify({ verdict: 'ok', confidence: 0.9, reason: 'fine' }) };
  if (p.includes('Task: Write the manifest'))
    return {
      text: JSON.stringify({
        files: [{ path: 'package.json', content: '{\n  "name": "tool"\n}\n' }],
        summary: 'manifest',
      }),
    };
  const rule = /^- Write only these paths: (.*?)\. Writing any other path/m.exec(p)?.[1] ?? '';
  if (!rule.split(', ').includes('package.json'))
    return {
      text: JSON.stringify({ files: [], needsFiles: ['package.json'], summary: 'the bin entry' }),
    };
  return {
    text: JSON.stringify({
      files: [
        { path: 'src/cli.js', content: "#!/usr/bin/env node\nconsole.log('tool');\n" },
        {
          path: 'package.json',
          content: '{\n  "name": "tool",\n  "bin": { "tool": "src/cli.js" }\n}\n',
        },
      ],
      summary: 'cli',
    }),
  };
}

describe('a worker that needs a file outside its list', () => {
  it('sends its node back to planning with that file, instead of being discarded', async () => {
    fake = await startFakeGemini(model);
    const dir = await tempDir();
    const workspace = await openWorkspace(dir, true);
    const gemini = new GeminiModel({
      model: 'gemini-2.5-flash',
      apiKey: ['AIza', 'K'.repeat(35)].join(''),
      baseUrl: fake.baseUrl,
      attempts: 1,
    });
    const engine = new MakerEngine({
      workspace,
      roles: { planner: new LlmPlanner(gemini), worker: new LlmWorker(gemini, workspace) },
      store: makerStateFile(dir),
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
    expect(JSON.parse(git(dir, 'show', 'main:package.json'))).toEqual({
      name: 'tool',
      bin: { tool: 'src/cli.js' },
    });
    const run = await engine.getRun(runId);
    const cli = run.nodes['1'];
    expect(cli?.files).toEqual(['src/cli.js', 'package.json']);
    // A fresh vote on the wider list decided it; the request was not a red-flagged discard.
    expect(cli?.leaf?.attempt).toBe(1);
    expect(cli?.leaf?.draws.every((d) => d.status === 'valid')).toBe(true);
    expect(run.questions.map((q) => q.id)).toEqual(['q-root-veto']);
    // Its first workers were told the rule plainly.
    const first = fake.requests.find((r) => r.prompt.includes('Task: Write the CLI'));
    expect(first?.prompt).toContain(
      'Write only these paths: src/cli.js. Writing any other path discards your whole answer.',
    );
  });
});
