/** Why a sample was discarded. Red flags are data, collected, never thrown. */
export interface RedFlag {
  /** Stable rule id, e.g. `token-cap`, `truncated`, `parse`, `schema`. */
  readonly rule: string;
  /** A sentence a person can read. */
  readonly message: string;
}

/** One draw's outcome after red-flagging: a vote for `value`, or a discarded sample. */
export type Sample<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly flags: readonly RedFlag[] };

/** What the voter tells the sampler about one draw. Every draw of a vote has identical input. */
export interface DrawRequest {
  /** 0-based index of this draw within the vote, flagged draws included. */
  readonly draw: number;
  /** 1-based sampling round the draw belongs to (round 1 is the initial batch). */
  readonly round: number;
  /** Temperature to sample at: the first draw at `temperatures.first`, the rest at `temperatures.rest`. */
  readonly temperature: number;
  readonly signal: AbortSignal | undefined;
}

/**
 * Produces one candidate for the vote's (fixed) input. May return synchronously; the voter treats
 * both alike. A thrown error or rejected promise ends the vote with that error: infrastructure
 * failures are not red flags (wrap the sampler in a retry decorator instead).
 */
export type Sampler<T> = (request: DrawRequest) => Sample<T> | PromiseLike<Sample<T>>;

/** Maps a value to its equivalence class: two samples vote together iff their keys are equal. */
export type KeyOf<T> = (value: T) => string;

/** One equivalence class in a tally. `value` is the first sample that landed in the class. */
export interface TallyEntry<T> {
  readonly key: string;
  readonly value: T;
  readonly votes: number;
}

/** Counters every vote result carries. */
export interface VoteStats<T> {
  /** Samples drawn, flagged ones included: what was paid for. */
  readonly draws: number;
  /** Samples that passed red-flagging and voted. */
  readonly validDraws: number;
  readonly flaggedDraws: number;
  /** Sampling rounds (parallel batches) used; the initial batch is round 1. */
  readonly rounds: number;
  /** Classes sorted by votes, most first. */
  readonly tally: readonly TallyEntry<T>[];
}

export type VoteResult<T> =
  | ({
      readonly status: 'decided';
      readonly winner: T;
      readonly key: string;
      readonly votes: number;
      readonly runnerUpVotes: number;
    } & VoteStats<T>)
  | ({
      readonly status: 'undecided';
      /** Why the vote stopped without a winner. */
      readonly reason: 'max-draws';
      /** The class ahead when the vote stopped, if any class had votes. */
      readonly leader: TallyEntry<T> | undefined;
      readonly runnerUpVotes: number;
    } & VoteStats<T>);

/** Events a vote emits, in order: one `vote-start`, a `sample-*` per draw, one `vote-end`. */
export type VoteEvent<T> =
  | {
      readonly type: 'vote-start';
      readonly k: number;
      readonly initialBatch: number;
      readonly maxDraws: number;
    }
  | {
      readonly type: 'sample-drawn';
      readonly draw: number;
      readonly round: number;
      readonly temperature: number;
      readonly key: string;
      readonly value: T;
    }
  | {
      readonly type: 'sample-flagged';
      readonly draw: number;
      readonly round: number;
      readonly temperature: number;
      readonly flags: readonly RedFlag[];
    }
  | { readonly type: 'vote-end'; readonly result: VoteResult<T> };
