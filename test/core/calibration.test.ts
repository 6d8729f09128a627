import { describe, expect, it } from 'vitest';
import {
  classCount,
  recommend,
  votedAccuracy,
  wilson,
  type CalibrationSample,
} from '../../src/core/calibration.js';
import { estimate, kMin } from '../../src/core/math.js';
import { candidateCap } from '../../src/core/tree/presets.js';

const right: CalibrationSample = { valid: true, correct: true, key: 'r' };
const wrong = (key: string): CalibrationSample => ({ valid: true, correct: false, key });
const flagged: CalibrationSample = { valid: false, correct: false, key: '' };

describe('wilson', () => {
  it.each([
    // successes, n, low, high (95%, from the closed form)
    [8, 10, 0.4902, 0.9433],
    [0, 10, 0, 0.2775],
    [10, 10, 0.7225, 1],
    [95, 100, 0.8882, 0.9785],
  ])('%i of %i → [%f, %f]', (s, n, low, high) => {
    const i = wilson(s, n);
    expect(i.low).toBeCloseTo(low, 4);
    expect(i.high).toBeCloseTo(high, 4);
  });

  it('is [0, 1] with no observation', () => {
    expect(wilson(0, 0)).toEqual({ low: 0, high: 1 });
  });
});

describe('votedAccuracy', () => {
  it('counts correct samples as one class and wrong trees apart', () => {
    // Right 2 of 5: against three different wrong trees it usually wins; against one, it usually loses.
    // A cap far above the run's, so that every vote settles.
    const split = votedAccuracy([[right, right, wrong('a'), wrong('b'), wrong('c')]], 2, {
      repeats: 500,
      seed: 3,
      maxDraws: 100,
    });
    const one = votedAccuracy([[right, right, wrong('a'), wrong('a'), wrong('a')]], 2, {
      repeats: 500,
      seed: 3,
      maxDraws: 100,
    });
    expect(split.correct).toBeGreaterThan(0.5);
    expect(one.correct).toBeLessThan(0.5);
    expect(split.undecided).toBe(0);
  });

  it('grows with k when p > 1/2, is seeded, and redraws flagged samples', () => {
    const task = [right, right, right, wrong('x'), wrong('x'), flagged];
    const byK = [1, 2, 3, 4, 5].map((k) =>
      votedAccuracy([task], k, { repeats: 1000, seed: 9, maxDraws: 200 }),
    );
    for (let i = 1; i < byK.length; i++)
      expect(byK[i]?.correct ?? 0).toBeGreaterThanOrEqual((byK[i - 1]?.correct ?? 0) - 0.02);
    expect(byK[4]?.correct).toBeGreaterThan(byK[0]?.correct ?? 1);
    expect(votedAccuracy([task], 3, { repeats: 1000, seed: 9, maxDraws: 200 })).toEqual(byK[2]);
    expect(byK[0]?.drawsPerSubtask).toBeGreaterThan(1);
  });

  it("votes by the run's classes: two different right programs are two answers, and the cap is the run's", () => {
    // Both pass the hidden test, but they are different code: a run's vote does not pool them.
    const loop: CalibrationSample = { valid: true, correct: true, key: 'loop' };
    const reduce: CalibrationSample = { valid: true, correct: true, key: 'reduce' };
    const pooled = votedAccuracy([[right, right, right, right]], 2, { repeats: 300, seed: 4 });
    const split = votedAccuracy([[loop, reduce, loop, reduce]], 2, { repeats: 300, seed: 4 });
    expect(pooled.drawsPerSubtask).toBe(3);
    expect(split.drawsPerSubtask).toBeGreaterThan(pooled.drawsPerSubtask);
    expect(split.undecided).toBeGreaterThan(0);
    // Never past the run's cap at k = 2 (8 candidates, flagged ones counted).
    const noisy = votedAccuracy([[loop, reduce, flagged, flagged]], 2, { repeats: 300, seed: 4 });
    expect(noisy.drawsPerSubtask).toBeLessThanOrEqual(candidateCap(2));
    expect(candidateCap(2)).toBe(8);
    // Code that differs only up to local names joins when checks agree, as in a run.
    const a: CalibrationSample = {
      valid: true,
      correct: true,
      key: 'a',
      alias: 'same',
      check: { command: 't', ok: true },
    };
    const b = { ...a, key: 'b' };
    const joined = votedAccuracy([[a, b]], 2, { repeats: 100, seed: 4 });
    expect(joined.undecided).toBe(0);
    expect(joined.correct).toBe(1);
  });

  it('leaves a task with no valid sample undecided at the cap', () => {
    expect(votedAccuracy([[flagged]], 2, { repeats: 10, maxDraws: 7 })).toEqual({
      k: 2,
      correct: 0,
      undecided: 1,
      drawsPerSubtask: 7,
    });
  });
});

describe('recommend', () => {
  it("is maker estimate's k_min and expected samples at the lower end of p's interval", () => {
    const low = wilson(160, 200).low;
    const e = estimate({ p: low, v: 200 / 210, steps: 50, target: 0.95 });
    expect(recommend({ samples: 210, valid: 200, correct: 160 }, 50, 0.95)).toEqual({
      k: e.kMin,
      p: low,
      expectedSamplesPerSubtask: e.expectedDrawsPerStep,
      pFull: e.pFull,
    });
  });

  it('does not take a small sample that is all right for p = 1 (k = 1)', () => {
    const r = recommend({ samples: 10, valid: 10, correct: 10 }, 50, 0.95);
    expect(r.p).toBeCloseTo(0.7225, 4);
    expect(r.k).toBe(kMin(r.p, 50, 0.95));
    expect(r.k).toBeGreaterThan(1);
    expect(r.pFull).toBeGreaterThanOrEqual(0.95);
    expect(r.pFull).toBeLessThan(1);
  });

  it('has no k when p ≤ 1/2, when its interval reaches ½, or with no valid sample', () => {
    expect(recommend({ samples: 10, valid: 10, correct: 5 }, 50, 0.95).k).toBeNull();
    expect(recommend({ samples: 10, valid: 10, correct: 7 }, 50, 0.95).k).toBeNull();
    expect(recommend({ samples: 10, valid: 0, correct: 0 }, 50, 0.95).k).toBeNull();
  });
});

describe('classCount', () => {
  it('counts the classes valid samples vote as, by key, joining keys that differ in names when checks agree', () => {
    const ok = { command: 'node --test', ok: true };
    expect(
      classCount([
        { valid: true, correct: true, key: 'a' },
        { valid: true, correct: true, key: 'a' },
        { valid: false, correct: false, key: '' },
        { valid: true, correct: false, key: 'b' },
      ]),
    ).toBe(2);
    expect(
      classCount([
        { valid: true, correct: true, key: 'a', alias: 'x', check: ok },
        { valid: true, correct: true, key: 'a2', alias: 'x', check: ok },
      ]),
    ).toBe(1);
  });
});
