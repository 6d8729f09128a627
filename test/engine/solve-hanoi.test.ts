import { afterEach, describe, expect, it } from 'vitest';
import { hanoiSimAgent } from '../../src/adapters/sim/hanoi-sim.js';
import { AbortedError } from '../../src/core/errors.js';
import { AUTO_THINKING_TOKENS, GeminiModel } from '../../src/adapters/gemini/gemini-model.js';
import { languageModelAgent, type HanoiAgent } from '../../src/engine/hanoi/agent.js';
import { solveHanoi } from '../../src/engine/hanoi/solve.js';
import { referenceHanoiLoop } from '../../src/surfaces/bench/hanoi-reference.js';
import { HANOI_MAX_OUTPUT_TOKENS } from '../../src/core/hanoi/prompts.js';
import { startFakeGemini, type FakeGemini } from '../../src/offline/fake-gemini.js';
import { hanoiSolvingResponder } from '../fakes/hanoi-responder.js';

let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('solveHanoi', () => {
  it('solves 12 disks with zero errors on the simulated model, with the paper’s statistics', async () => {
    const report = await solveHanoi({
      disks: 12,
      k: 3,
      agent: hanoiSimAgent({ seed: 3, p: 0.99, v: 0.97 }),
    });
    expect(report).toMatchObject({ solved: true, errors: 0, steps: 4095, stepsDone: 4095 });
    expect(report.samples).toBe(report.validSamples + report.flagged);
    expect(report.flagged).toBeGreaterThan(0);
    // A truncated answer usually breaks the format too: both flags are recorded for that one sample.
    expect(report.flaggedByRule['truncated']).toBeGreaterThan(0);
    expect(report.flaggedByRule['format']).toBeGreaterThan(0);
    expect(Object.values(report.flaggedByRule).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(
      report.flagged,
    );
    expect(report.undecidedAfterRound[0]).toBeGreaterThan(0);
    // Undecided steps fall off round by round.
    for (let r = 1; r < report.undecidedAfterRound.length; r++)
      expect(report.undecidedAfterRound[r]).toBeLessThanOrEqual(
        report.undecidedAfterRound[r - 1] as number,
      );
  });

  it('draws exactly the samples the sequential reference loop draws (batching costs nothing)', async () => {
    const agent = () => hanoiSimAgent({ seed: 9, p: 0.95, v: 0.9 });
    const report = await solveHanoi({ disks: 10, k: 3, agent: agent() });
    const reference = referenceHanoiLoop(10, 3, report.stepsDone, agent());
    expect(report.samples).toBe(reference.samples);
    const wide = await solveHanoi({ disks: 10, k: 3, initialBatch: 5, agent: agent() });
    expect(wide.samples).toBe(referenceHanoiLoop(10, 3, wide.stepsDone, agent(), 5).samples);
    expect(wide.samples).toBeGreaterThan(report.samples);
  });

  it('reports wrong steps honestly when k is too small for p', async () => {
    const report = await solveHanoi({
      disks: 10,
      k: 1,
      agent: hanoiSimAgent({ seed: 4, p: 0.98, v: 1 }),
    });
    expect(report.solved).toBe(false);
    expect(report.errors).toBeGreaterThan(0);
    expect(report.errorSteps[0]).toBeGreaterThanOrEqual(0);
  });

  it('stops at a step the cap leaves undecided and says which', async () => {
    const report = await solveHanoi({
      disks: 6,
      k: 3,
      maxDraws: 4,
      agent: hanoiSimAgent({ seed: 1, p: 0.9, v: 0.5 }),
    });
    expect(report.solved).toBe(false);
    expect(report.stoppedEarly?.reason).toMatch(/no answer was 3 votes ahead after 4 draws/);
    expect(report.stepsDone).toBe(report.stoppedEarly?.step);
  });

  it('yields to the event loop while a synchronous agent runs, so a timer can abort it', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 0);
    const progress: number[] = [];
    await expect(
      solveHanoi({
        disks: 16,
        k: 3,
        agent: hanoiSimAgent({ seed: 1, p: 0.99, v: 0.99 }),
        signal: controller.signal,
        progressEvery: 512,
        onProgress: (done) => progress.push(done),
      }),
    ).rejects.toBeInstanceOf(AbortedError);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toBeLessThan(2 ** 16 - 1);
  });

  it('flags over-long answers from the agent', async () => {
    const long: HanoiAgent = (input, step, request) => {
      const sim = hanoiSimAgent({ seed: 1, p: 1, v: 1 })(input, step, request);
      if (sim instanceof Promise) throw new Error('sync');
      return request.draw === 0 ? { ...sim, outputTokens: HANOI_MAX_OUTPUT_TOKENS + 1 } : sim;
    };
    const report = await solveHanoi({ disks: 4, k: 2, agent: long });
    expect(report.solved).toBe(true);
    expect(report.flaggedByRule['token-cap']).toBe(15);
  });

  it('solves 4 disks through the real Gemini client against the local fake model, at the paper’s temperatures and cap', async () => {
    fake = await startFakeGemini(hanoiSolvingResponder);
    const model = new GeminiModel({
      model: 'gemini-2.5-flash',
      apiKey: 'test-key',
      baseUrl: fake.baseUrl,
    });
    const report = await solveHanoi({ disks: 4, k: 2, agent: languageModelAgent(model) });
    expect(report).toMatchObject({ solved: true, errors: 0, samples: 30 });
    const requests = fake.requests;
    expect(requests).toHaveLength(30);
    // The paper's cap on the answer, with room for a thinking model's hidden reasoning on top.
    expect(
      requests.every((r) => r.maxOutputTokens === HANOI_MAX_OUTPUT_TOKENS + AUTO_THINKING_TOKENS),
    ).toBe(true);
    const zeros = requests.filter((r) => r.temperature === 0).length;
    const tenths = requests.filter((r) => r.temperature === 0.1).length;
    expect([zeros, tenths]).toEqual([15, 15]);
    expect(requests[0]?.system).toContain('EXACT FORMAT');
    expect(requests.some((r) => r.prompt.includes('Previous move: None'))).toBe(true);
  });
});
