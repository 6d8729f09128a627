/**
 * Adaptive k for one vote: when a decided vote's win looks narrow, the node's vote goes on at k + 1.
 *
 * Why, and why these thresholds. Under the paper's model (independent errors, two answers) the
 * margin alone carries the evidence: 3 : 1 and 2 : 0 are equally sure at k = 2. Code and plans are
 * not that model: wrong samples of one misconception are identical and vote together (issue 36:
 * a wrong manifest won 3 : 1). What a vote can see of that is a rival that keeps getting votes, or
 * a check or a judge that disagrees; each says the per-sample success this node sees is lower
 * than k was chosen for, so the node needs a wider margin (as zircote/maker-rs lowers its estimate
 * of p, and so raises k, when a vote needs more samples than k or has red flags; it does so across
 * votes, from an average, where this rule does it within the one vote that showed it).
 *
 * - Agreement: narrow when a runner-up class has votes and the leader is ahead by exactly k (it
 *   won at the first moment it could, over a rival). 2 : 0 is not narrow (nothing disagreed); 4 : 1
 *   at k = 2 is not (the first batch already put it ahead by more than k). Requiring the runner-up
 *   to hold half the leader's votes would miss 3 : 1, the case seen.
 * - Ballots: narrow when the judges' own margin is exactly k over a runner-up with ballots (they
 *   were split too), or when the judges chose a class with fewer sample votes than the samples'
 *   leader (judges and samples disagree).
 * - Checks: narrow when most of the vote's draws were red-flagged (more flagged than valid): the
 *   model mostly fails this node's checks, acceptance test or review, so the few that pass are
 *   weaker evidence. Above the run's `maxFlagRate` a person is asked anyway.
 *
 * The next k is k + 1, never above the ceiling (2 × the run's k), and only while the run's cap on
 * draws leaves one to draw: raising k without a draw left would only turn a decision into a
 * question. At the ceiling the vote stands as the run's rule settles it at that k.
 */

/** A decided vote, as the rule sees it. */
export interface SettledVote {
  /** The margin the vote was settled at. */
  readonly k: number;
  readonly settledBy: 'agreement' | 'ballots';
  /** Valid samples of the leading class and of the runner-up class. */
  readonly leaderVotes: number;
  readonly runnerUpVotes: number;
  /** The judges' ballots for their choice and for the runner-up (settled by ballots only). */
  readonly ballots?: { readonly lead: number; readonly second: number } | undefined;
  /** Sample votes of the class the judges chose (settled by ballots only). */
  readonly chosenVotes?: number | undefined;
  readonly validDraws: number;
  readonly flaggedDraws: number;
}

export interface KBounds {
  /** The highest k the vote may use. */
  readonly ceiling: number;
  /** Draws the run's cap still allows this vote. */
  readonly drawsLeft: number;
}

export type KDecision =
  | { readonly narrow: false }
  /** `next`: the k to go on with; null when the ceiling or the cap is reached (the vote stands). */
  | { readonly narrow: true; readonly reasons: readonly string[]; readonly next: number | null };

/** The highest k a vote may be raised to, from the run's k. */
export function kCeiling(k: number): number {
  return 2 * k;
}

/** Whether a decided vote's win is narrow, why, and the k to go on with. */
export function adaptK(vote: SettledVote, bounds: KBounds): KDecision {
  const reasons = narrowReasons(vote);
  if (reasons.length === 0) return { narrow: false };
  const next = vote.k + 1 <= bounds.ceiling && bounds.drawsLeft > 0 ? vote.k + 1 : null;
  return { narrow: true, reasons, next };
}

function narrowReasons(v: SettledVote): string[] {
  const reasons: string[] = [];
  if (v.settledBy === 'agreement') {
    if (v.runnerUpVotes > 0 && v.leaderVotes - v.runnerUpVotes <= v.k)
      reasons.push(`contested ${v.leaderVotes} : ${v.runnerUpVotes}, ahead by exactly k = ${v.k}`);
  } else {
    const b = v.ballots;
    if (b !== undefined && b.second > 0 && b.lead - b.second <= v.k)
      reasons.push(`judges split ${b.lead} : ${b.second}`);
    if (v.chosenVotes !== undefined && v.chosenVotes < v.leaderVotes)
      reasons.push(
        `judges chose a class with ${v.chosenVotes} sample vote${v.chosenVotes === 1 ? '' : 's'} over the leader's ${v.leaderVotes}`,
      );
  }
  if (v.flaggedDraws > v.validDraws)
    reasons.push(`${v.flaggedDraws} of ${v.flaggedDraws + v.validDraws} candidates red-flagged`);
  return reasons;
}

/** How the reason of a test vote widened by a doubt begins (a narrow win's reasons never do). */
export const DOUBT_REASON = 'the code doubted it';

/** Why a vote's k was raised, before its reasons: a narrow win, or the code's doubt. */
export function raisedBecause(reasons: readonly string[] | undefined): string {
  return reasons !== undefined &&
    reasons.length > 0 &&
    reasons.every((r) => r.startsWith(DOUBT_REASON))
    ? ''
    : ' after a narrow win';
}
