import { describe, expect, it } from 'vitest';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import type { FakeGeminiRequest } from '../../src/offline/fake-gemini.js';
import { geminiConfig, geminiEngine, git, useFakeGemini } from '../helpers/gemini-engine.js';
import { useTempDirs } from '../helpers/tmp.js';
import { atRoot, isTask, promptRole, writable } from '../helpers/prompts.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
const startFake = useFakeGemini();

/**
 * A plan whose second subtask cannot be done in its files alone: its worker asks for
 * package.json (to add a bin entry) until its list holds it.
 */
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
  if (role === 'ballot' || role === 'blame')
    return { text: JSON.stringify({ choice: 'A', reason: 'x' }) };
  if (role === 'review')
    return { text: JSON.stringify({ verdict: 'ok', confidence: 0.9, reason: 'fine' }) };
  if (isTask(p, 'Write the manifest'))
    return {
      text: JSON.stringify({
        files: [{ path: 'package.json', content: '{\n  "name": "tool"\n}\n' }],
        summary: 'manifest',
      }),
    };
  if (!writable(p).includes('package.json'))
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
    const fake = await startFake(model);
    const dir = await tempDir();
    const engine = geminiEngine(dir, await openWorkspace(dir, true, workspaceSettings()), fake);
    const runId = await engine.create('a tool', geminiConfig);
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
    const first = fake.requests.find((r) => isTask(r.prompt, 'Write the CLI'));
    expect(first?.prompt).toContain(
      'Write only these paths: src/cli.js. Writing any other path discards your whole answer.',
    );
  });
});
