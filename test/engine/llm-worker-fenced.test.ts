import { describe, expect, it } from 'vitest';
import { MemoryWorkspace } from '../../src/adapters/memory/memory-workspace.js';
import { LlmWorker } from '../../src/engine/models/llm-worker.js';
import type { GenerateRequest, LanguageModel } from '../../src/ports/language-model.js';
import type { NodeContext } from '../../src/ports/planner.js';
import { baseConfig, memoryEngine } from '../helpers/engine.js';

const F = '```';

/** A model that answers each request with the next of `answers`, keeping what it was asked. */
function scripted(answers: string[]): LanguageModel & { requests: GenerateRequest[] } {
  const requests: GenerateRequest[] = [];
  return {
    id: 'scripted',
    requests,
    generate: (request) => {
      requests.push(request);
      const text = answers.shift() ?? '';
      return Promise.resolve({ text, finishReason: 'stop', inputTokens: 10, outputTokens: 10 });
    },
  };
}

const context: NodeContext = {
  runId: 'r1',
  nodeId: '0',
  idea: 'a tool',
  depth: 1,
  maxDepth: 3,
  task: {
    title: 'Write the CLI',
    description: 'src/cli.js prints hello.',
    acceptance: [],
    files: ['src/cli.js'],
    dependsOn: [],
  },
  ancestors: ['a tool'],
  clarifications: [],
  repository: (budget) =>
    Promise.resolve({ text: 'The repository is empty.', chars: 24, budget, omitted: [] }),
};

const run = (model: LanguageModel) =>
  new LlmWorker(model, new MemoryWorkspace(), { editFormat: 'fenced' }).run(
    { context, baseCommit: '', branch: 'b' },
    1,
  );

describe('the gemini worker in the fenced edit format', () => {
  it('asks for File: lines and fenced blocks, with no JSON schema, and reads the files', async () => {
    const model = scripted([
      `File: src/cli.js\n${F}js\nconsole.log('hello\\n');\n${F}\n\n${F}json\n{"summary": "Print hello"}\n${F}\n`,
    ]);
    const out = await run(model);
    expect(out).toMatchObject({
      ok: true,
      edits: [{ path: 'src/cli.js', content: "console.log('hello\\n');\n" }],
      summary: 'Print hello',
    });
    const request = model.requests[0];
    expect(request?.json).toBeUndefined();
    expect(request?.prompt).toMatch(
      /a line "File: <relative path>", then its complete new content in a fenced block/,
    );
    expect(request?.prompt).toMatch(/escape nothing/);
    expect(request?.prompt).not.toMatch(/Reply as JSON/);
  });

  it('passes on the files it needs from its summary block', async () => {
    const out = await run(
      scripted([`${F}json\n{"needsFiles": ["package.json"], "summary": "the bin entry"}\n${F}\n`]),
    );
    expect(out).toMatchObject({ ok: false, needsFiles: ['package.json'] });
  });

  it('turns an answer whose fences slipped into an unusable one, naming the slip', async () => {
    const out = await run(scripted([`File: src/cli.js\n${F}js\nconsole.log(1);\n`]));
    expect(out.ok).toBe(false);
    expect(out.ok ? '' : out.reason).toBe(
      "The model's answer is not in the fenced edit format: the block for src/cli.js is never closed: a closing fence is missing (or the answer was cut off).",
    );
  });

  it('in a run, a slipped answer is a red-flagged draw with its reason, and a redraw lands', async () => {
    const good = `File: src/tool.txt\n${F}\nthe tool\n${F}\n${F}json\n{"summary": "Add the tool"}\n${F}\n`;
    const model = scripted([`File: src/tool.txt\n${F}\nthe tool\n`, good, good, good, good]);
    const engine = memoryEngine(
      new LlmWorker(model, new MemoryWorkspace(), { editFormat: 'fenced' }),
      0,
    );
    const runId = await engine.create('a tool', { ...baseConfig, maxDepth: 0, concurrency: 1 });
    const outcome = await engine.run(runId);
    const run = await engine.getRun(runId);
    engine.close();
    expect(outcome.status).toBe('done');
    const flagged = (run.nodes['root']?.leaf?.draws ?? []).filter((d) => d.status === 'flagged');
    expect(flagged.map((d) => d.flags.map((f) => [f.rule, f.message]))).toEqual([
      [
        [
          'worker-failed',
          "The model's answer is not in the fenced edit format: the block for src/tool.txt is never closed: a closing fence is missing (or the answer was cut off).",
        ],
      ],
    ]);
  });
});
