import { afterEach, describe, expect, it } from 'vitest';
import { GeminiModel } from '../../src/adapters/gemini/gemini-model.js';
import { MemoryWorkspace } from '../../src/adapters/memory/memory-workspace.js';
import { LlmWorker } from '../../src/engine/models/llm-worker.js';
import {
  startFakeGemini,
  type FakeGemini,
  type FakeGeminiResponder,
} from '../../src/offline/fake-gemini.js';
import { baseConfig, memoryEngine } from '../helpers/engine.js';

let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const EDITS = JSON.stringify({
  files: [{ path: 'src/tool.txt', content: 'the tool\n' }],
  summary: 'Add the tool',
});

/** A one-leaf run whose gemini worker answers through `respond`; its leaf's draws. */
async function leafDraws(respond: FakeGeminiResponder) {
  fake = await startFakeGemini(respond);
  const model = new GeminiModel({
    model: 'gemini-2.5-flash',
    apiKey: 'fake-key-0123456789',
    baseUrl: fake.baseUrl,
  });
  const engine = memoryEngine(new LlmWorker(model, new MemoryWorkspace()), 0);
  const runId = await engine.create('a tool', { ...baseConfig, maxDepth: 0, concurrency: 1 });
  const outcome = await engine.run(runId);
  const run = await engine.getRun(runId);
  engine.close();
  return {
    outcome,
    draws: run.nodes['root']?.leaf?.draws ?? [],
    tokens: run.nodes['root']?.cost.tokens,
  };
}

describe("the gemini worker's answers, as a real model gives them", () => {
  it('red-flags an answer the model stopped for recitation or safety, even when it parses', async () => {
    const { outcome, draws } = await leafDraws((_r, index) => ({
      text: EDITS,
      finishReason: index === 0 ? 'RECITATION' : 'STOP',
    }));
    expect(outcome.status).toBe('done');
    const flagged = draws.filter((d) => d.status === 'flagged');
    expect(flagged.map((d) => d.flags.map((f) => f.rule))).toEqual([['abnormal-stop']]);
  });

  it('red-flags an answer over its 16,384-token cap that room left for thinking let finish', async () => {
    const { draws } = await leafDraws((_r, index) => ({
      text: EDITS,
      ...(index === 0 ? { outputTokens: 16_500 } : {}),
    }));
    const flagged = draws.filter((d) => d.status === 'flagged');
    expect(flagged.map((d) => d.flags.map((f) => f.rule))).toEqual([['truncated']]);
  });

  it('names the stop reason when a stopped answer is empty', async () => {
    const { draws } = await leafDraws((_r, index) =>
      index === 0 ? { text: '', finishReason: 'SAFETY' } : { text: EDITS },
    );
    const flagged = draws.filter((d) => d.status === 'flagged');
    expect(flagged).toHaveLength(1);
    expect(flagged[0]?.flags.map((f) => f.message).join(' ')).toMatch(/safety/);
  });

  it('reads an answer wrapped in a ```json fence, as the planner does', async () => {
    const { outcome, draws } = await leafDraws(() => ({ text: `\`\`\`json\n${EDITS}\n\`\`\`` }));
    expect(draws.filter((d) => d.status === 'flagged')).toEqual([]);
    expect(outcome.status).toBe('done');
  });

  it('counts the tokens of an answer it could not use: a flagged draw is paid for too', async () => {
    const { draws, tokens } = await leafDraws((_r, index) =>
      index === 0
        ? { text: '{"files": [', finishReason: 'MAX_TOKENS', outputTokens: 16_384, inputTokens: 2 }
        : { text: EDITS, outputTokens: 10, inputTokens: 2 },
    );
    expect(draws.filter((d) => d.status === 'flagged')).toHaveLength(1);
    expect(tokens).toBeGreaterThanOrEqual(16_384 + 2);
  });

  it("counts a thinking model's hidden reasoning tokens, which are billed", async () => {
    const { tokens } = await leafDraws(() => ({
      text: EDITS,
      outputTokens: 10,
      inputTokens: 2,
      thoughtTokens: 5_000,
    }));
    expect(tokens).toBeGreaterThanOrEqual(5_000);
  });
});
