import { initialCandidates } from '../tree/presets.js';

/**
 * The one drawing rule of first-to-ahead-by-k (Meyerson et al. 2025, Fig. 2), pure: given a vote's
 * standing, how many more samples to draw, or that the vote is over. Exact votes and judge ballots
 * (`first-to-ahead-by-k.ts`), code and split candidates (`engine/votes.ts`) and calibration
 * (`../calibration.ts`) all draw by it. Red-flagged draws count against the cap and never vote.
 */
export interface VoteSchedule {
  /** Margin the winner needs over the runner-up (k ≥ 1). */
  readonly k: number;
  /** Cap on draws, flagged ones included; may be Infinity. */
  readonly maxDraws: number;
  /**
   * What is drawn before the first check: `draws` draws in one parallel batch (exact votes: k, the
   * fewest that can decide), or draws until `valid` of them are valid, flagged ones redrawn
   * (expensive candidates: 2k − 1). Either way the cap bounds it.
   */
  readonly opening: { readonly draws: number } | { readonly valid: number };
  /**
   * True: drawing stops once no class can get ahead by k within the cap, or no draw is valid
   * (expensive candidates go to judges or a person then). False: drawing goes on to the cap.
   */
  readonly stopsOutOfReach: boolean;
}

/** What a vote has counted so far. */
export interface VoteStanding {
  /** Draws made, flagged ones included. */
  readonly draws: number;
  /** Valid draws among them (each one vote). */
  readonly valid: number;
  /** Votes of the class with the most (0 when none). */
  readonly leaderVotes: number;
  /** The best count among the other classes (0 when none). */
  readonly runnerUpVotes: number;
}

/**
 * The next move: draw `count` more (in parallel: a top-up of `k − lead` is the most that cannot
 * overshoot), or stop, `decided` when the leader is ahead by k.
 */
export type VoteStep =
  | { readonly action: 'draw'; readonly count: number }
  | { readonly action: 'decided' }
  | { readonly action: 'stop'; readonly reason: 'max-draws' | 'out-of-reach' };

const DECIDED: VoteStep = { action: 'decided' };
const AT_CAP: VoteStep = { action: 'stop', reason: 'max-draws' };
const OUT_OF_REACH: VoteStep = { action: 'stop', reason: 'out-of-reach' };

/** The rule's decision: the leader's votes are at least `k` more than the runner-up's. */
export function aheadByK(leaderVotes: number, runnerUpVotes: number, k: number): boolean {
  return leaderVotes - runnerUpVotes >= k;
}

/**
 * The classes a tie is broken among: those the leader (`leaderVotes`) is not ahead of by `k`,
 * the leader's own class with them.
 */
export function contenders<C extends { readonly votes: number }>(
  classes: readonly C[],
  leaderVotes: number,
  k: number,
): C[] {
  return classes.filter((c) => !aheadByK(leaderVotes, c.votes, k));
}

/**
 * The schedule's next step from `standing`. While the opening is unfinished and the cap allows, it
 * draws the rest of the opening; then a leader ahead by k decides (even at the cap), the cap ends
 * an undecided vote, and otherwise `k − lead` more are drawn (within the cap).
 */
export function nextVoteStep(schedule: VoteSchedule, standing: VoteStanding): VoteStep {
  const { k, opening } = schedule;
  const left = schedule.maxDraws - standing.draws;
  const owed = 'draws' in opening ? opening.draws - standing.draws : opening.valid - standing.valid;
  if (owed > 0 && left > 0) return { action: 'draw', count: Math.min(owed, left) };
  const lead = standing.leaderVotes - standing.runnerUpVotes;
  if (aheadByK(standing.leaderVotes, standing.runnerUpVotes, k)) return DECIDED;
  if (left <= 0) return AT_CAP;
  // The runner-up's votes stay; the most the leader can gain is every draw left.
  if (schedule.stopsOutOfReach && (standing.leaderVotes === 0 || lead + left < k))
    return OUT_OF_REACH;
  return { action: 'draw', count: Math.min(k - lead, left) };
}

/**
 * The schedule of a vote among expensive candidates (code patches, splits): 2k − 1 valid first
 * (`opensAtK`'s margin: a vote whose margin was raised keeps the opening it had), then top-ups
 * while a class can still get ahead by `k` within `maxDraws`.
 */
export function candidateSchedule(k: number, maxDraws: number, opensAtK = k): VoteSchedule {
  return {
    k,
    maxDraws,
    opening: { valid: initialCandidates(opensAtK) },
    stopsOutOfReach: true,
  };
}

/** The two best counts among `votes` (any order): what {@link VoteStanding} needs of a tally. */
export function topTwo(votes: Iterable<number>): { leaderVotes: number; runnerUpVotes: number } {
  let leaderVotes = 0;
  let runnerUpVotes = 0;
  for (const v of votes) {
    if (v > leaderVotes) {
      runnerUpVotes = leaderVotes;
      leaderVotes = v;
    } else if (v > runnerUpVotes) runnerUpVotes = v;
  }
  return { leaderVotes, runnerUpVotes };
}
