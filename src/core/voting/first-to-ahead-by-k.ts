import { AbortedError, UsageError } from '../errors.js';
import { nextVoteStep, type VoteSchedule } from './schedule.js';
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
   * schedule). Later batches draw `k − lead`, the most that cannot overshoot, so with a first batch
   * of at most k batching costs no more draws than sequential voting. A wider first batch (`2k−1`,
   * as for slow workers) is counted whole before the first check: it may cost draws the sequential
   * rule would not have made, and decides on that extra evidence.
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
  readonly key: string;
  readonly value: T;
  votes: number;
}

const NOTHING_COUNTED = { draws: 0, valid: 0, leaderVotes: 0, runnerUpVotes: 0 } as const;

/** Above this many classes the tally is indexed by a map; below it, a linear scan is cheaper. */
const SCAN_LIMIT = 8;

/**
 * First-to-ahead-by-k voting (Meyerson et al. 2025, Fig. 2): draw samples with identical input
 * until one equivalence class has `k` more valid votes than any other. Red-flagged samples cost a
 * draw but never vote. Batches are drawn in parallel; because every top-up is `k − lead` draws, a
 * decision can only fall on a top-up's last vote, so with a first batch of at most k (the default)
 * the votes counted, and the winner, are exactly those of the sequential algorithm. A wider first
 * batch is counted whole, then the same rule goes on from its standings (`pSubForSchedule` in
 * `../math.ts` gives how often that is right).
 *
 * Rejects with {@link AbortedError} when `signal` aborts, and with the sampler's own error when a
 * draw fails.
 */
export async function firstToAheadByK<T>(options: VoteOptions<T>): Promise<VoteResult<T>> {
  return voteFirstToAheadByK(options);
}

/**
 * {@link firstToAheadByK} without a promise where none is needed: while every draw answers
 * synchronously the vote runs synchronously and returns its result (or throws); from the first
 * batch holding a promise on, it returns a promise. Hot loops over synchronous samplers (the
 * simulated Hanoi model) use it to pay no microtask per vote.
 */
export function voteFirstToAheadByK<T>(
  options: VoteOptions<T>,
): VoteResult<T> | Promise<VoteResult<T>> {
  const vote = new Vote(options);
  for (;;) {
    const outcomes = vote.drawBatch();
    if (vote.batchIsAsync) return vote.settleAsync(outcomes);
    const result = vote.count(outcomes as readonly Sample<T>[]);
    if (result !== undefined) return result;
  }
}

/** One vote's state between batches. */
class Vote<T> {
  readonly #schedule: VoteSchedule;
  readonly #sample: Sampler<T>;
  readonly #keyOf: KeyOf<T>;
  readonly #first: number;
  readonly #rest: number;
  readonly #signal: AbortSignal | undefined;
  readonly #emit: ((event: VoteEvent<T>) => void) | undefined;
  readonly #entries: MutableEntry<T>[] = [];
  #index: Map<string, MutableEntry<T>> | undefined;
  #draws = 0;
  #validDraws = 0;
  #round = 0;
  #batch: number;
  batchIsAsync = false;

  constructor(options: VoteOptions<T>) {
    const { k, onEvent } = options;
    const initialBatch = options.initialBatch ?? k;
    const maxDraws = options.maxDraws ?? defaultMaxDraws(k);
    validate(k, initialBatch, maxDraws);
    const temperatures = options.temperatures ?? PAPER_TEMPERATURES;
    this.#schedule = { k, maxDraws, opening: { draws: initialBatch }, stopsOutOfReach: false };
    this.#sample = options.sample;
    this.#keyOf = options.keyOf;
    this.#first = temperatures.first;
    this.#rest = temperatures.rest;
    this.#signal = options.signal;
    this.#emit = onEvent === undefined ? undefined : safeNotify(onEvent);
    this.#emit?.({ type: 'vote-start', k, initialBatch, maxDraws });
    // A vote always opens with a draw: the first batch and the cap are at least 1.
    const opening = nextVoteStep(this.#schedule, NOTHING_COUNTED);
    this.#batch = opening.action === 'draw' ? opening.count : 0;
  }

  /** Starts the next batch's draws; `batchIsAsync` tells whether any returned a promise. */
  drawBatch(): (Sample<T> | PromiseLike<Sample<T>>)[] {
    const signal = this.#signal;
    if (signal?.aborted) throw new AbortedError(signal.reason);
    this.#round += 1;
    const outcomes: (Sample<T> | PromiseLike<Sample<T>>)[] = [];
    let anyAsync = false;
    for (let i = 0; i < this.#batch; i++) {
      const draw = this.#draws + i;
      const outcome = this.#sample({
        draw,
        round: this.#round,
        temperature: draw === 0 ? this.#first : this.#rest,
        signal,
      });
      if (!anyAsync && isThenable(outcome)) anyAsync = true;
      outcomes.push(outcome);
    }
    this.batchIsAsync = anyAsync;
    return outcomes;
  }

  async settleAsync(outcomes: (Sample<T> | PromiseLike<Sample<T>>)[]): Promise<VoteResult<T>> {
    for (;;) {
      const settled = this.batchIsAsync
        ? await raceAbort(Promise.all(outcomes.map((o) => Promise.resolve(o))), this.#signal)
        : (outcomes as Sample<T>[]);
      const result = this.count(settled);
      if (result !== undefined) return result;
      outcomes = this.drawBatch();
    }
  }

  /** Counts a settled batch: the result when the vote is over, else undefined (next batch sized). */
  count(settled: readonly Sample<T>[]): VoteResult<T> | undefined {
    const emit = this.#emit;
    const round = this.#round;
    for (let i = 0; i < settled.length; i++) {
      const outcome = settled[i] as Sample<T>;
      const draw = this.#draws + i;
      if (outcome.ok) {
        this.#validDraws += 1;
        const key = this.#keyOf(outcome.value);
        const entry = this.#find(key);
        if (entry === undefined) this.#add({ key, value: outcome.value, votes: 1 });
        else entry.votes += 1;
        if (emit !== undefined) {
          const temperature = draw === 0 ? this.#first : this.#rest;
          emit({ type: 'sample-drawn', draw, round, temperature, key, value: outcome.value });
        }
      } else if (emit !== undefined) {
        const temperature = draw === 0 ? this.#first : this.#rest;
        emit({ type: 'sample-flagged', draw, round, temperature, flags: outcome.flags });
      }
    }
    this.#draws += this.#batch;

    // The class with the most votes (earliest on ties) and the best count among the others.
    let leader: MutableEntry<T> | undefined;
    let runnerUpVotes = 0;
    for (const entry of this.#entries) {
      if (leader === undefined) leader = entry;
      else if (entry.votes > leader.votes) {
        runnerUpVotes = leader.votes;
        leader = entry;
      } else if (entry.votes > runnerUpVotes) runnerUpVotes = entry.votes;
    }
    const draws = this.#draws;
    const leaderVotes = leader === undefined ? 0 : leader.votes;
    const step = nextVoteStep(this.#schedule, {
      draws,
      valid: this.#validDraws,
      leaderVotes,
      runnerUpVotes,
    });
    if (step.action === 'draw') {
      this.#batch = step.count;
      return undefined;
    }
    const counts = {
      runnerUpVotes,
      draws,
      validDraws: this.#validDraws,
      flaggedDraws: draws - this.#validDraws,
      rounds: round,
      tally: this.#sortedTally(),
    };
    const result: VoteResult<T> =
      step.action === 'decided' && leader !== undefined
        ? {
            status: 'decided',
            winner: leader.value,
            key: leader.key,
            votes: leader.votes,
            ...counts,
          }
        : { status: 'undecided', reason: 'max-draws', leader, ...counts };
    emit?.({ type: 'vote-end', result });
    return result;
  }

  #find(key: string): MutableEntry<T> | undefined {
    if (this.#index !== undefined) return this.#index.get(key);
    for (const entry of this.#entries) if (entry.key === key) return entry;
    return undefined;
  }

  #add(entry: MutableEntry<T>): void {
    this.#entries.push(entry);
    if (this.#index !== undefined) this.#index.set(entry.key, entry);
    else if (this.#entries.length > SCAN_LIMIT)
      this.#index = new Map(this.#entries.map((e) => [e.key, e]));
  }

  /** The classes by votes, most first (earliest first on ties); they no longer change. */
  #sortedTally(): TallyEntry<T>[] {
    const entries = this.#entries;
    return entries.length < 2 ? entries : entries.slice().sort((a, b) => b.votes - a.votes);
  }
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
