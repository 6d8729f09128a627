import type { RunConfig } from './schema.js';

export type Confidence = RunConfig['confidence'];

/**
 * What each confidence preset buys: the vote margin k, how many candidates and judge ballots a
 * vote may spend before it asks a person, and the red-flag rate above which a person is asked even
 * if the vote decided (a subtask most samples get wrong in form is a subtask the model is confused by).
 */
export const PRESETS: Readonly<
  Record<Confidence, Pick<RunConfig, 'k' | 'maxCandidates' | 'maxBallots' | 'maxFlagRate'>>
> = {
  low: { k: 1, maxCandidates: 4, maxBallots: 4, maxFlagRate: 0.75 },
  medium: { k: 2, maxCandidates: 8, maxBallots: 10, maxFlagRate: 0.6 },
  high: { k: 3, maxCandidates: 12, maxBallots: 16, maxFlagRate: 0.5 },
};

/** Candidates drawn up front for a worker vote: 2k − 1, the fewest that can show a k-vote lead. */
export function initialCandidates(k: number): number {
  return 2 * k - 1;
}

/**
 * The candidates a run's vote may draw at margin k (flagged ones included): the cap of the preset
 * whose k it is (the highest past 3), and at least 4k, as `maker run` sets it.
 */
export function candidateCap(k: number): number {
  const preset = k <= 1 ? PRESETS.low : k === 2 ? PRESETS.medium : PRESETS.high;
  return Math.max(preset.maxCandidates, 4 * k);
}
