import { describe, expect, it } from 'vitest';
import { samplingFor } from '../../src/core/sampling.js';
import { summarise } from '../../src/core/view/summary.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import type { FakeGeminiReply, FakeGeminiRequest } from '../../src/offline/fake-gemini.js';
import { geminiConfig, geminiEngine, useFakeGemini } from '../helpers/gemini-engine.js';
import { projectModel } from '../helpers/project-model.js';
import { useTempDirs } from '../helpers/tmp.js';
import { promptRole } from '../helpers/prompts.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
const startFake = useFakeGemini();

const MODEL = 'gemini-2.5-flash';
const isWorker = (r: FakeGeminiRequest) => promptRole(r) === 'worker';
const budgetOf = (r: FakeGeminiRequest | undefined) =>
  (r?.body as { generationConfig?: { thinkingConfig?: { thinkingBudget?: number } } })
    .generationConfig?.thinkingConfig?.thinkingBudget;

/**
 * A run over the fake Gemini (one model call at a time, so a retry is the request right after
 * the one it retries) whose first worker request spends the whole output cap thinking and
 * answers nothing; `emptyTimes` in a row are answered so. Other requests get the scripted
 * project model, every worker answer well-formed.
 */
async function runWithEmptyThink(emptyTimes: number) {
  let emptyAt: number | undefined;
  const fake = await startFake((request, index): FakeGeminiReply => {
    if (isWorker(request) && (emptyAt === undefined || index < emptyAt + emptyTimes)) {
      emptyAt ??= index;
      return { text: '', finishReason: 'MAX_TOKENS', thoughtTokens: 9000, outputTokens: 0 };
    }
    // Index 0: a well-formed answer (the project model cuts every fourth one off by index).
    return projectModel(request, 0);
  });
  const dir = await tempDir();
  const workspace = await openWorkspace(dir, true, workspaceSettings());
  const engine = geminiEngine(dir, workspace, fake);
  try {
    const runId = await engine.create('a CLI that converts CSV to JSON', {
      ...geminiConfig,
      maxDepth: 3,
      concurrency: 1,
    });
    const outcome = await engine.run(runId);
    expect(outcome.error).toBeUndefined();
    expect(outcome.status).toBe('done');
    const run = await engine.getRun(runId);
    const draws = Object.values(run.nodes).flatMap((n) => n.leaf?.draws ?? []);
    return { run, draws, emptyAt: emptyAt as number, requests: fake.requests };
  } finally {
    await workspace.close();
  }
}

describe(
  'an empty answer at MAX_TOKENS (the thinking used the whole cap)',
  { timeout: 60_000 },
  () => {
    const table = samplingFor(MODEL, 'worker');

    it('is asked once more with a larger thinking budget, and that answer is kept and counted', async () => {
      const { run, draws, emptyAt, requests } = await runWithEmptyThink(1);
      const [first, retry] = [requests[emptyAt], requests[emptyAt + 1]];
      expect(first?.prompt).toBe(retry?.prompt);
      expect(budgetOf(first)).toBe(table.thinkingBudget);
      expect(budgetOf(retry)).toBe(2 * (table.thinkingBudget ?? 0));
      expect(retry?.maxOutputTokens).toBe(table.answerTokens + 2 * (table.thinkingBudget ?? 0));
      // The retried draw was no red flag: nothing was discarded as cut off.
      expect(draws.flatMap((d) => d.flags).filter((f) => f.message.includes('cut off'))).toEqual(
        [],
      );
      // Both requests are counted: the summary's calls are the requests the model received.
      const summary = summarise(run);
      expect(summary.modelCalls).toBe(requests.length);
      expect(summary.byRole['worker']?.calls).toBe(requests.filter(isWorker).length);
    });

    it('is a red flag when the retry is empty too, after exactly two requests', async () => {
      const { run, draws, emptyAt, requests } = await runWithEmptyThink(2);
      expect(budgetOf(requests[emptyAt + 1])).toBe(2 * (table.thinkingBudget ?? 0));
      // No third try: the next request is another draw at the table's budget, or another role.
      const next = requests[emptyAt + 2];
      expect(next !== undefined && isWorker(next) ? budgetOf(next) : undefined).toBe(
        next !== undefined && isWorker(next) ? table.thinkingBudget : undefined,
      );
      const cutOff = draws.filter((d) =>
        d.flags.some((f) => f.rule === 'worker-failed' && f.message.includes('cut off')),
      );
      expect(cutOff).toHaveLength(1);
      expect(summarise(run).modelCalls).toBe(requests.length);
    });
  },
);
