import { estimate } from './math.js';
import { candidateCap } from './tree/presets.js';
import type { Draw } from './tree/schema.js';
import { voteClasses } from './voting/classes.js';
import { candidateSchedule, nextVoteStep, topTwo, type VoteSchedule } from './voting/schedule.js';
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
  /** What the sample votes for: its class key, as a run's vote keys it (normalised content). */
  readonly key: string;
  /** Its key up to local names, which joins a class when checks agree (as in a run). */
  readonly alias?: string | undefined;
  /** The subtask's check on it, when one ran (calibration runs none: its test is hidden). */
  readonly check?: { readonly command: string; readonly ok: boolean } | undefined;
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
  /** Share of votes whose winner (the first drawn member of the winning class) passes the hidden test. */
  readonly correct: number;
  /** Share of votes no class won by agreement within the cap (a run would ask judges, then a person). */
  readonly undecided: number;
  /** Mean draws per vote, flagged ones included. */
  readonly drawsPerSubtask: number;
}

/** Each valid sample's class (an index) by a run's rule (`core/voting/classes.ts`); -1 for invalid ones. */
function classIndices(samples: readonly CalibrationSample[]): number[] {
  const draws: Draw[] = samples.map((s, slot) =>
    s.valid
      ? {
          slot,
          status: 'valid',
          key: s.key,
          flags: [],
          ...(s.alias === undefined ? {} : { alias: s.alias }),
          ...(s.check === undefined ? {} : { check: { ...s.check, output: '' } }),
        }
      : { slot, status: 'flagged', flags: [] },
  );
  const out = samples.map(() => -1);
  voteClasses(draws).forEach((c, i) => {
    for (const m of c.members) out[m.slot] = i;
  });
  return out;
}

/** How many vote classes a subtask's valid samples fall into, by a run's rule. */
export function classCount(samples: readonly CalibrationSample[]): number {
  return new Set(classIndices(samples).filter((c) => c >= 0)).size;
}

/**
 * A run's candidate vote on each subtask's recorded samples, drawn with replacement (`repeats`
 * votes per subtask, seeded: the same inputs give the same figures), by the run's schedule
 * ({@link candidateSchedule}: 2k − 1 valid first, then k − lead more while a class can still get
 * ahead by k within the cap, `maxDraws`, flagged draws counted; default the run's
 * {@link candidateCap}). Samples vote by the run's classes; the winner is its class's first drawn
 * member, correct when that sample passed its hidden test.
 */
export function votedAccuracy(
  subtasks: readonly (readonly CalibrationSample[])[],
  k: number,
  options: { repeats?: number; seed?: number; maxDraws?: number } = {},
): VotedAccuracy {
  const repeats = options.repeats ?? 200;
  const seed = options.seed ?? 1;
  const schedule = candidateSchedule(k, options.maxDraws ?? candidateCap(k));
  let correct = 0;
  let undecided = 0;
  let draws = 0;
  let votes = 0;
  subtasks.forEach((samples, t) => {
    if (samples.length === 0) return;
    const classOf = classIndices(samples);
    for (let r = 0; r < repeats; r++) {
      votes += 1;
      const pick = (d: number) => Math.floor(uniform(seed, t, r, d) * samples.length);
      const vote = replayVote(schedule, samples, classOf, pick);
      draws += vote.draws;
      if (vote.winner === undefined) undecided += 1;
      else if (vote.winner.correct) correct += 1;
    }
  });
  return {
    k,
    correct: votes === 0 ? 0 : correct / votes,
    undecided: votes === 0 ? 0 : undecided / votes,
    drawsPerSubtask: votes === 0 ? 0 : draws / votes,
  };
}

/**
 * One vote by `schedule` over recorded `samples`, the `d`th draw being `samples[pick(d)]`: its draws
 * and, when decided, the first drawn member of the winning class.
 */
function replayVote(
  schedule: VoteSchedule,
  samples: readonly CalibrationSample[],
  classOf: readonly number[],
  pick: (draw: number) => number,
): { draws: number; winner?: CalibrationSample } {
  const tally = new Map<number, { votes: number; first: CalibrationSample }>();
  let d = 0;
  let valid = 0;
  for (;;) {
    const top = topTwo([...tally.values()].map((c) => c.votes));
    const step = nextVoteStep(schedule, { draws: d, valid, ...top });
    if (step.action === 'decided') {
      const leader = [...tally.values()].find((c) => c.votes === top.leaderVotes);
      return { draws: d, ...(leader === undefined ? {} : { winner: leader.first }) };
    }
    if (step.action === 'stop') return { draws: d };
    for (let i = 0; i < step.count; i++, d++) {
      const index = pick(d);
      const sample = samples[index];
      if (sample === undefined || !sample.valid) continue;
      valid += 1;
      const c = classOf[index] ?? -1;
      const entry = tally.get(c);
      if (entry === undefined) tally.set(c, { votes: 1, first: sample });
      else entry.votes += 1;
    }
  }
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
