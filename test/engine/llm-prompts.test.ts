import { afterEach, describe, expect, it } from 'vitest';
import { GeminiModel } from '../../src/adapters/gemini/gemini-model.js';
import { MemoryWorkspace } from '../../src/adapters/memory/memory-workspace.js';
import { LlmPlanner } from '../../src/engine/models/llm-planner.js';
import { LlmWorker } from '../../src/engine/models/llm-worker.js';
import type { NodeContext } from '../../src/ports/planner.js';
import { startFakeGemini, type FakeGemini } from '../../src/offline/fake-gemini.js';

let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const CONTEXT: NodeContext = {
  runId: 'r',
  nodeId: 'n-0',
  idea: 'a tool',
  depth: 1,
  maxDepth: 3,
  task: {
    title: 'Write the tool',
    description: 'Write it.',
    acceptance: ['it works'],
    files: ['src/tool.ts'],
    dependsOn: [],
  },
  ancestors: ['a tool'],
  clarifications: [],
};

async function model(text: string) {
  fake = await startFakeGemini(() => ({ text }));
  return new GeminiModel({
    model: 'gemini-2.5-flash',
    apiKey: 'fake-key-0123456789',
    baseUrl: fake.baseUrl,
  });
}

describe('what the prompts claim', () => {
  it('a review of a long change says the change was cut, not that it ends there', async () => {
    const planner = new LlmPlanner(await model('{"verdict": "ok", "confidence": 0.9}'));
    const patch = `diff --git a/src/tool.ts b/src/tool.ts\n${'+const x = 1;\n'.repeat(3000)}`;
    await planner.reviewCandidate(CONTEXT, patch, { slot: 0, temperature: 0 });
    const prompt = fake?.requests[0]?.prompt ?? '';
    expect(prompt).toMatch(/more characters/);
  });

  it('a worker whose budget shows no file of a full repository is not told the repository is empty', async () => {
    const ws = new MemoryWorkspace({
      'src/tool.ts': 'export const tool = 1;\n',
      'README.md': '# tool\n',
    });
    const base = (await ws.resolve('main')) as string;
    const worker = new LlmWorker(
      await model('{"files": [{"path": "src/tool.ts", "content": "x"}]}'),
      ws,
      { contextChars: 10 },
    );
    await worker.run({ context: CONTEXT, baseCommit: base, branch: 'maker/r/n-0' }, 0);
    const prompt = fake?.requests[0]?.prompt ?? '';
    expect(prompt).not.toContain('The repository is empty.');
  });
});
