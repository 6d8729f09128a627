import { estimate } from './math.js';
import { uniform } from './random.js';

/**
 * The paper's calibration (§4, Fig. 6), for code: from samples of minimal subtasks with hidden
 * tests, the valid rate v, the per-sample success p among valid samples, their confidence
 * intervals, how often first-to-ahead-by-k voting picks a correct candidate, and the k to use.
 */

/** One sample of a calibration subtask: valid (parsed, not red-flagged) and correct (its hidden test passed). */
export interface CalibrationSample {
  readonly valid: boolean;
  readonly correct: boolean;
  /** What the sample votes for: its tree. Correct samples vote together (see {@link votedAccuracy}). */
  readonly key: string;
}

/** A proportion's 95% Wilson score interval (z = 1.96); [0, 1] when there is no observation. */
export function wilson(successes: number, n: number, z = 1.96): { low: number; high: number } {
  if (n === 0) return { low: 0, high: 1 };
  const phat = successes / n;
  const z2 = z * z;
  const centre = (phat + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((phat * (1 - phat)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

export interface VotedAccuracy {
  readonly k: number;
  /** Share of votes whose winner passes the hidden test. */
  readonly correct: number;
  /** Share of votes undecided at the draw cap (a run would ask a person). */
  readonly undecided: number;
  /** Mean draws per vote, flagged ones included. */
  readonly drawsPerSubtask: number;
}

/**
 * First-to-ahead-by-k on each subtask's recorded samples, drawn with replacement (`repeats` votes
 * per subtask, seeded: the same inputs give the same figures). Invalid draws are discarded and
 * redrawn; valid draws vote by behaviour: every correct sample for one class (they pass the same
 * hidden test), each wrong tree for its own. A vote stops when the leader is k ahead, or at
 * `maxDraws` (undecided).
 */
export function votedAccuracy(
  subtasks: readonly (readonly CalibrationSample[])[],
  k: number,
  options: { repeats?: number; seed?: number; maxDraws?: number } = {},
): VotedAccuracy {
  const repeats = options.repeats ?? 200;
  const seed = options.seed ?? 1;
  const maxDraws = options.maxDraws ?? 50 * k;
  let correct = 0;
  let undecided = 0;
  let draws = 0;
  let votes = 0;
  subtasks.forEach((samples, t) => {
    if (samples.length === 0) return;
    for (let r = 0; r < repeats; r++) {
      votes += 1;
      const tally = new Map<string, number>();
      let winner: string | undefined;
      let d = 0;
      while (d < maxDraws && winner === undefined) {
        const pick = samples[Math.floor(uniform(seed, t, r, d) * samples.length)];
        d += 1;
        if (pick === undefined || !pick.valid) continue;
        const key = pick.correct ? '\u0000correct' : pick.key;
        tally.set(key, (tally.get(key) ?? 0) + 1);
        const [first = 0, second = 0] = [...tally.values()].sort((a, b) => b - a);
        if (first - second >= k) winner = [...tally].find(([, n]) => n === first)?.[0];
      }
      draws += d;
      if (winner === undefined) undecided += 1;
      else if (winner === '\u0000correct') correct += 1;
    }
  });
  return {
    k,
    correct: votes === 0 ? 0 : correct / votes,
    undecided: votes === 0 ? 0 : undecided / votes,
    drawsPerSubtask: votes === 0 ? 0 : draws / votes,
  };
}

export interface Recommendation {
  /**
   * The paper's k_min at {@link Recommendation.p}, the step count and the target; null when no k
   * reaches it (that p ≤ ½, or no valid sample).
   */
  readonly k: number | null;
  /** The per-sample success the advice assumes: the lower end of p's 95% Wilson interval. */
  readonly p: number;
  /** Expected draws per minimal subtask at that k and p, flagged ones included (E[votes]/v). */
  readonly expectedSamplesPerSubtask: number | null;
  /** Probability that every one of the steps is decided right at that k and p. */
  readonly pFull: number | null;
}

/**
 * What `maker estimate` gives at the lower end of p's 95% interval (and the measured v): k_min,
 * and the samples it costs per subtask. The point estimate would bet the run on luck in a small
 * calibration (10 of 10 right is p = 1, hence k = 1); the lower bound advises a k that reaches the
 * target unless the model is worse than the samples plausibly show.
 */
export function recommend(
  counts: { readonly samples: number; readonly valid: number; readonly correct: number },
  steps: number,
  target: number,
): Recommendation {
  const p = wilson(counts.correct, counts.valid).low;
  const v = counts.samples === 0 ? 0 : counts.valid / counts.samples;
  if (!(p > 0.5) || !(v > 0)) return { k: null, p, expectedSamplesPerSubtask: null, pFull: null };
  const e = estimate({ p, v, steps, target });
  return { k: e.kMin, p, expectedSamplesPerSubtask: e.expectedDrawsPerStep, pFull: e.pFull };
}
