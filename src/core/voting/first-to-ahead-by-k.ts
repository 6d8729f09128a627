import { AbortedError, UsageError } from '../errors.js';
import type { KeyOf, Sample, Sampler, TallyEntry, VoteEvent, VoteResult } from './types.js';

/** The paper's temperature schedule: the first draw at 0 (the best guess votes), the rest at 0.1. */
export const PAPER_TEMPERATURES = { first: 0, rest: 0.1 } as const;

/** Default cap on draws (flagged ones included) for a vote with margin `k`. */
export function defaultMaxDraws(k: number): number {
  return Math.max(50, 50 * k);
}

export interface VoteOptions<T> {
  /** Margin the winner needs over the runner-up (k ≥ 1). */
  readonly k: number;
  readonly sample: Sampler<T>;
  readonly keyOf: KeyOf<T>;
  /**
   * Draws in the first, parallel batch. Default `k`, the fewest that can decide (the paper's
   * schedule). Worker candidates use `2k−1`. Later batches draw `k − lead`, the most that cannot
   * overshoot, so batching costs no more draws than sequential voting.
   */
  readonly initialBatch?: number;
  /** Cap on draws, flagged ones included. At the cap an undecided vote returns `undecided`. */
  readonly maxDraws?: number;
  readonly temperatures?: { readonly first: number; readonly rest: number };
  readonly signal?: AbortSignal;
  /** Observer; its exceptions are swallowed so it can never break the vote. */
  readonly onEvent?: (event: VoteEvent<T>) => void;
}

interface MutableEntry<T> {
  key: string;
  value: T;
  votes: number;
}

/**
 * First-to-ahead-by-k voting (Meyerson et al. 2025, Fig. 2): draw samples with identical input
 * until one equivalence class has `k` more valid votes than any other. Red-flagged samples cost a
 * draw but never vote. Batches are drawn in parallel; because every top-up is `k − lead` draws, a
 * decision can only fall on a batch's last vote, so the votes counted, and the winner, are exactly
 * those of the sequential algorithm.
 *
 * Rejects with {@link AbortedError} when `signal` aborts, and with the sampler's own error when a
 * draw fails.
 */
export async function firstToAheadByK<T>(options: VoteOptions<T>): Promise<VoteResult<T>> {
  const { k, sample, keyOf, signal, onEvent } = options;
  const initialBatch = options.initialBatch ?? k;
  const maxDraws = options.maxDraws ?? defaultMaxDraws(k);
  const temperatures = options.temperatures ?? PAPER_TEMPERATURES;
  validate(k, initialBatch, maxDraws);

  const emit = onEvent === undefined ? undefined : safeNotify(onEvent);
  emit?.({ type: 'vote-start', k, initialBatch, maxDraws });

  const classes = new Map<string, MutableEntry<T>>();
  let draws = 0;
  let validDraws = 0;
  let round = 0;
  let batch = Math.min(initialBatch, maxDraws);

  for (;;) {
    if (signal?.aborted) throw new AbortedError(signal.reason);
    round += 1;
    const outcomes: (Sample<T> | PromiseLike<Sample<T>>)[] = [];
    let anyAsync = false;
    for (let i = 0; i < batch; i++) {
      const draw = draws + i;
      const outcome = sample({
        draw,
        round,
        temperature: draw === 0 ? temperatures.first : temperatures.rest,
        signal,
      });
      if (!anyAsync && isThenable(outcome)) anyAsync = true;
      outcomes.push(outcome);
    }
    const settled: readonly Sample<T>[] = anyAsync
      ? await raceAbort(Promise.all(outcomes.map((o) => Promise.resolve(o))), signal)
      : (outcomes as Sample<T>[]);

    for (let i = 0; i < settled.length; i++) {
      const outcome = settled[i] as Sample<T>;
      const draw = draws + i;
      const temperature = draw === 0 ? temperatures.first : temperatures.rest;
      if (outcome.ok) {
        validDraws += 1;
        const key = keyOf(outcome.value);
        const entry = classes.get(key);
        if (entry === undefined) classes.set(key, { key, value: outcome.value, votes: 1 });
        else entry.votes += 1;
        emit?.({ type: 'sample-drawn', draw, round, temperature, key, value: outcome.value });
      } else {
        emit?.({ type: 'sample-flagged', draw, round, temperature, flags: outcome.flags });
      }
    }
    draws += batch;

    const { leader, runnerUpVotes } = standings(classes);
    const lead = leader === undefined ? 0 : leader.votes - runnerUpVotes;
    const stats = { draws, validDraws, flaggedDraws: draws - validDraws, rounds: round };
    if (leader !== undefined && lead >= k) {
      const result: VoteResult<T> = {
        status: 'decided',
        winner: leader.value,
        key: leader.key,
        votes: leader.votes,
        runnerUpVotes,
        ...stats,
        tally: sortedTally(classes),
      };
      emit?.({ type: 'vote-end', result });
      return result;
    }
    if (draws >= maxDraws) {
      const result: VoteResult<T> = {
        status: 'undecided',
        reason: 'max-draws',
        leader: leader === undefined ? undefined : { ...leader },
        runnerUpVotes,
        ...stats,
        tally: sortedTally(classes),
      };
      emit?.({ type: 'vote-end', result });
      return result;
    }
    batch = Math.min(k - lead, maxDraws - draws);
  }
}

/** The class with the most votes (earliest on ties) and the best count among the others. */
function standings<T>(classes: Map<string, MutableEntry<T>>): {
  leader: MutableEntry<T> | undefined;
  runnerUpVotes: number;
} {
  let leader: MutableEntry<T> | undefined;
  let runnerUpVotes = 0;
  for (const entry of classes.values()) {
    if (leader === undefined) leader = entry;
    else if (entry.votes > leader.votes) {
      runnerUpVotes = leader.votes;
      leader = entry;
    } else if (entry.votes > runnerUpVotes) runnerUpVotes = entry.votes;
  }
  return { leader, runnerUpVotes };
}

function sortedTally<T>(classes: Map<string, MutableEntry<T>>): TallyEntry<T>[] {
  return [...classes.values()].map((e) => ({ ...e })).sort((a, b) => b.votes - a.votes);
}

function validate(k: number, initialBatch: number, maxDraws: number): void {
  if (!Number.isInteger(k) || k < 1)
    throw new UsageError(`k must be a whole number ≥ 1 (got ${k}).`);
  if (!Number.isInteger(initialBatch) || initialBatch < 1)
    throw new UsageError(`The initial batch must be a whole number ≥ 1 (got ${initialBatch}).`);
  if (!(maxDraws >= 1) || (Number.isFinite(maxDraws) && !Number.isInteger(maxDraws)))
    throw new UsageError(`maxDraws must be a whole number ≥ 1 or Infinity (got ${maxDraws}).`);
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function safeNotify<E>(listener: (event: E) => void): (event: E) => void {
  return (event) => {
    try {
      listener(event);
    } catch {
      // Observers cannot break the vote.
    }
  };
}

/** Settles with `promise`, or rejects with {@link AbortedError} as soon as `signal` aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(new AbortedError(signal.reason));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new AbortedError(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
