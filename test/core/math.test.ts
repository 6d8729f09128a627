import { describe, expect, it } from 'vitest';
import {
  estimate,
  expectedDrawsPerSubtask,
  expectedVotes,
  kMin,
  pFull,
  pSub,
  pSubForSchedule,
  winProbabilityFrom,
} from '../../src/core/math.js';
import { firstToAheadByK } from '../../src/core/voting/first-to-ahead-by-k.js';
import type { Sample } from '../../src/core/voting/types.js';
import { UsageError } from '../../src/core/errors.js';
import { uniform } from '../../src/core/random.js';

const STEPS_20_DISKS = 1_048_575;

describe('the paper’s scaling laws', () => {
  // Figure 6b: 20 disks, t = 0.95; per-step error rate 1 − p → k_min.
  it.each([
    ['gpt-4.1-nano', 0.3571, 29],
    ['gpt-4.1-mini (τ=1.0)', 0.004, 4],
    ['gpt-4.1-mini (τ=0.1)', 0.0022, 3],
    ['o3-mini (low)', 0.0018, 3],
    ['haiku-4.5', 0.1839, 12],
    ['gpt-oss-20B', 0.0358, 6],
    ['qwen3', 0.2342, 15],
    ['deepseek-v3.1', 0.0569, 6],
    ['kimi-k2', 0.0393, 6],
  ])('k_min for %s (error %f) is %i, as in Figure 6b', (_model, error, expected) => {
    expect(kMin(1 - error, STEPS_20_DISKS, 0.95)).toBe(expected);
  });

  it('matches the derived table for gpt-4.1-mini at p = 0.9978', () => {
    const p = 0.9978;
    expect(1 - pSub(p, 1)).toBeCloseTo(0.0022, 6);
    expect((1 - pSub(p, 2)) / 4.86e-6).toBeCloseTo(1, 2);
    expect((1 - pSub(p, 3)) / 1.07e-8).toBeCloseTo(1, 1);
    expect(pFull(p, 2, STEPS_20_DISKS)).toBeCloseTo(0.006, 3);
    expect(pFull(p, 3, STEPS_20_DISKS)).toBeCloseTo(0.989, 3);
    expect(pFull(p, 4, STEPS_20_DISKS)).toBeCloseTo(0.99998, 5);
    expect(expectedVotes(p, 2)).toBeCloseTo(2.009, 3);
    expect(expectedVotes(p, 3)).toBeCloseTo(3.013, 3);
    expect(expectedVotes(p, 4)).toBeCloseTo(4.018, 3);
  });

  it('expected votes agree with k/(2p−1) closely at high p, and are k² at p = ½', () => {
    expect(expectedVotes(0.99, 5) / (5 / 0.98)).toBeCloseTo(1, 3);
    expect(expectedVotes(0.5, 3)).toBeCloseTo(9, 9);
    expect(expectedVotes(0.5 + 1e-13, 3)).toBeCloseTo(9, 6);
    expect(expectedVotes(1, 3)).toBe(3);
  });

  it('counts flagged draws: E[draws] = E[votes]/v when the first batch is at most k', () => {
    expect(expectedDrawsPerSubtask(0.9, 3, { v: 0.5 })).toBeCloseTo(
      expectedVotes(0.9, 3) / 0.5,
      12,
    );
  });

  it('a wider first batch, counted whole, is right at least as often as p_sub, exactly as computed', () => {
    // p = 0.8, k = 3, first batch 5: the lead after 5 votes, then gambler's ruin from it.
    expect(1 - pSubForSchedule(0.8, 3, { initialBatch: 5 })).toBeCloseTo(0.0106584615, 9);
    expect(pSubForSchedule(0.8, 3, { initialBatch: 3, v: 0.5 })).toBe(pSub(0.8, 3));
    expect(winProbabilityFrom(0.8, 3, 0)).toBeCloseTo(pSub(0.8, 3), 12);
    expect(winProbabilityFrom(0.5, 3, 1)).toBeCloseTo(4 / 6, 12);
    for (const p of [0.55, 0.7, 0.9, 0.9978])
      for (const k of [1, 2, 3, 5])
        for (const v of [1, 0.6])
          expect(pSubForSchedule(p, k, { v, initialBatch: 2 * k - 1 })).toBeGreaterThanOrEqual(
            pSub(p, k) - 1e-12,
          );
  });

  it('m > 1 races the m-step success p^m', () => {
    expect(pFull(0.99, 3, 1000, 5)).toBeCloseTo(pSub(0.99 ** 5, 3) ** 200, 12);
    expect(kMin(0.99, 1000, 0.9, 5)).toBeGreaterThanOrEqual(kMin(0.99, 1000, 0.9, 1));
  });

  it('estimate reports k_min and what it buys', () => {
    const e = estimate({
      p: 0.9978,
      steps: STEPS_20_DISKS,
      target: 0.95,
      v: 0.99,
      costPerSample: 0.001,
    });
    expect(e.kMin).toBe(3);
    expect(e.pFull).toBeCloseTo(0.989, 3);
    expect(e.expectedDrawsPerStep).toBeCloseTo(3.013 / 0.99, 3);
    expect(e.expectedDraws).toBeCloseTo(e.expectedDrawsPerStep * STEPS_20_DISKS, 6);
    expect(e.expectedCost).toBeCloseTo(e.expectedDraws * 0.001, 6);
  });

  it('refuses impossible cases with a clear usage error', () => {
    expect(() => kMin(0.5, 100, 0.9)).toThrow(UsageError);
    expect(() => kMin(0.4, 100, 0.9)).toThrow(/more often than not/);
    expect(() => kMin(0.9, 100, 1)).toThrow(UsageError);
    expect(() => pSub(1.2, 3)).toThrow(UsageError);
    expect(() => pSub(0.9, 0)).toThrow(UsageError);
    expect(() => expectedDrawsPerSubtask(0.9, 3, { v: 0 })).toThrow(UsageError);
    expect(kMin(1, 100, 0.9)).toBe(1);
  });
});

/** Runs the real voting code over `trials` two-candidate races with a seeded Bernoulli sampler. */
async function monteCarlo(p: number, k: number, v: number, trials: number, initialBatch?: number) {
  let wrong = 0;
  let votes = 0;
  let draws = 0;
  let sumSq = 0;
  for (let t = 0; t < trials; t++) {
    const sample = ({ draw }: { draw: number }): Sample<string> => {
      if (uniform(99, t, draw, 1) >= v)
        return { ok: false, flags: [{ rule: 'sim', message: 'flagged' }] };
      return { ok: true, value: uniform(99, t, draw, 2) < p ? 'right' : 'wrong' };
    };
    const result = await firstToAheadByK({
      k,
      sample,
      keyOf: (s) => s,
      maxDraws: Infinity,
      ...(initialBatch ? { initialBatch } : {}),
    });
    if (result.status !== 'decided') throw new Error('undecided without a cap');
    if (result.winner === 'wrong') wrong += 1;
    votes += result.validDraws;
    draws += result.draws;
    sumSq += result.draws * result.draws;
  }
  const meanDraws = draws / trials;
  const sdDraws = Math.sqrt(sumSq / trials - meanDraws * meanDraws);
  return {
    errorRate: wrong / trials,
    meanVotes: votes / trials,
    meanDraws,
    seDraws: sdDraws / Math.sqrt(trials),
  };
}

describe('theory against Monte Carlo runs of the real voting code', () => {
  it('p = 0.75, k = 3, v = 0.8: error rate, votes and draws match the formulas', async () => {
    const trials = 20_000;
    const mc = await monteCarlo(0.75, 3, 0.8, trials);
    const errorRate = 1 - pSub(0.75, 3);
    const seError = Math.sqrt((errorRate * (1 - errorRate)) / trials);
    expect(Math.abs(mc.errorRate - errorRate)).toBeLessThan(4 * seError);
    const expectedDraws = expectedDrawsPerSubtask(0.75, 3, { v: 0.8 });
    expect(Math.abs(mc.meanDraws - expectedDraws)).toBeLessThan(4 * mc.seDraws);
    expect(mc.meanVotes / expectedVotes(0.75, 3)).toBeCloseTo(1, 1);
  });

  it('an initial batch of 2k − 1 costs, and is right as often as, the exact formulas say', async () => {
    const trials = 20_000;
    const mc = await monteCarlo(0.8, 3, 0.9, trials, 5);
    const expected = expectedDrawsPerSubtask(0.8, 3, { v: 0.9, initialBatch: 5 });
    expect(expected).toBeGreaterThan(expectedDrawsPerSubtask(0.8, 3, { v: 0.9 }));
    expect(Math.abs(mc.meanDraws - expected)).toBeLessThan(4 * mc.seDraws);
    // The whole first batch is counted before the first check: more evidence than the sequential
    // rule, so fewer wrong winners than 1 − p_sub (0.0154 here), and estimate says how many.
    const e = estimate({ p: 0.8, steps: 10, target: 0.5, k: 3, v: 0.9, initialBatch: 5 });
    const errorRate = 1 - e.pSub;
    const seError = Math.sqrt((errorRate * (1 - errorRate)) / trials);
    expect(errorRate).toBeLessThan(1 - pSub(0.8, 3));
    expect(Math.abs(mc.errorRate - errorRate)).toBeLessThan(4 * seError);
    expect(e.pFull).toBeCloseTo(e.pSub ** 10, 12);
  });
});
