import { voteClasses, type VoteClass } from '../../core/voting/classes.js';
import { firstToAheadByK } from '../../core/voting/first-to-ahead-by-k.js';
import {
  candidateSchedule,
  contenders,
  nextVoteStep,
  type VoteSchedule,
  type VoteStep,
} from '../../core/voting/schedule.js';
import type { VoteResult } from '../../core/voting/types.js';
import type { Draw, TreeNode, VoteOutcome, VoteRecord } from '../../core/tree/schema.js';
import { adaptK, kCeiling, type SettledVote } from '../../core/voting/adaptive-k.js';
import { ballotText, voteCounts } from '../../core/view/display.js';
import { saveSoon } from '../run/state-saver.js';
import type { RunContext } from '../run/run-context.js';
import type { HeldSlot } from '../../core/semaphore.js';
import { drawSlot, settleAll, type DrawResult } from './draw-slot.js';
import { castBallots, type BallotSpec } from './ballots.js';

export { drawSlot, type DrawResult } from './draw-slot.js';

export type ClassTally = VoteClass;

/** Valid draws grouped into their classes, most votes first (earliest first among equals). */
export function tally(draws: readonly (Draw | undefined)[]): ClassTally[] {
  return voteClasses(draws);
}

/**
 * A yes/no (or any exact-match) vote: first-to-ahead-by-k over recorded draws, initial batch k (the
 * record's own k when it was raised, else the run's).
 */
export async function exactVote(
  ctx: RunContext,
  n: TreeNode,
  vote: string,
  record: VoteRecord,
  produce: (slot: number) => Promise<DrawResult>,
): Promise<VoteOutcome> {
  if (record.outcome !== undefined) return record.outcome;
  const { maxCandidates } = ctx.run.config;
  // A vote whose margin was widened (an acceptance test the code doubts) counts at its own k.
  const k = record.k ?? ctx.run.config.k;
  ctx.emit({ type: 'vote-start', nodeId: n.id, vote });
  const result = await firstToAheadByK({
    k,
    maxDraws: maxCandidates * 2,
    keyOf: (key: string) => key,
    signal: ctx.signal,
    sample: async ({ draw }) => {
      const d = await drawSlot(ctx, n, vote, record.draws, draw, () => produce(draw));
      return d.status === 'valid'
        ? { ok: true, value: d.key ?? '' }
        : { ok: false, flags: d.flags };
    },
  });
  const outcome: VoteOutcome = {
    status: result.status,
    ...(result.status === 'decided'
      ? { key: result.key }
      : result.leader === undefined
        ? {}
        : { key: result.leader.key }),
    votes: result.status === 'decided' ? result.votes : (result.leader?.votes ?? 0),
    runnerUpVotes: result.runnerUpVotes,
    draws: result.draws,
    flagged: result.flaggedDraws,
  };
  return finish(ctx, n, vote, record, outcome);
}

export interface CandidateVoteOptions {
  /**
   * Produces the draw for `slot`; `started` is its record, where write-ahead ids go; `resumed` says
   * an earlier attempt started it (and may have paid for work whose id it did not record).
   */
  readonly produce: (
    slot: number,
    started: Draw,
    resumed: boolean,
    first?: HeldSlot,
  ) => Promise<DrawResult>;
  /**
   * `produce` takes the run's paid slots itself, around its paid calls only (a code candidate: the
   * worker's run, its check and its review, not the git work between them); otherwise each draw
   * holds one slot from start to end.
   */
  readonly paysItself?: boolean;
  /**
   * With `paysItself`: each draw waits in line for the slot of its first paid call (the worker's
   * run) before `produce` starts, and `produce` gets it as `first` (to run that call in).
   */
  readonly claimsFirst?: boolean;
  /** What the judges are asked (criteria included), and how a class is shown to them. */
  readonly ballot: BallotSpec;
  /**
   * Read before each batch of draws: true ends the vote there, undecided and without judges (the
   * caller acts on what the draws so far show, e.g. an acceptance test they contest).
   */
  readonly stop?: (draws: readonly (Draw | undefined)[]) => boolean;
}

/**
 * The vote for expensive candidates (patches, splits). 2k − 1 valid candidates are drawn in
 * parallel, flagged ones replaced. Agreement first: while no class leads by k and one still can
 * within the cap, more are drawn (k − lead at a time, the most that cannot overshoot). Only then do
 * judges break the tie, with ballots (order shuffled per ballot) among the classes the leader is not
 * ahead of by k, counted ahead-by-k. A vote the judges cannot settle, or one with a red-flag rate
 * over the preset's limit (its ballots still cast first), comes back `undecided` for a person,
 * its key the class the judges favour.
 *
 * A narrow win does not decide (`core/voting/adaptive-k.ts`): the vote goes on at k + 1, counted
 * over every draw and ballot so far, up to the ceiling and the cap. The raised k is saved on the
 * record before the draws it asks for, and the rule reads saved draws only, so a resume after a
 * kill at any point reaches the same outcome. A raised vote that settles neither by agreement nor
 * by the judges keeps the decision it had before the raise (`standing`): a raise asks for a wider
 * margin, it never turns a decision into a question.
 */
export async function candidateVote(
  ctx: RunContext,
  n: TreeNode,
  vote: string,
  record: VoteRecord,
  options: CandidateVoteOptions,
): Promise<VoteOutcome> {
  if (record.outcome !== undefined) return record.outcome;
  const { k: floor, maxCandidates } = ctx.run.config;
  ctx.emit({ type: 'vote-start', nodeId: n.id, vote });
  const draw = (slots: readonly number[]) =>
    settleAll(
      slots.map((slot) =>
        drawSlot(
          ctx,
          n,
          vote,
          record.draws,
          slot,
          (started, resumed, first) => options.produce(slot, started, resumed, first),
          options.paysItself,
          options.claimsFirst,
        ),
      ),
    );
  // Slots a crash left started: finished first, with what they recorded.
  await draw(record.draws.filter((d) => d.status === 'started').map((d) => d.slot));
  for (;;) {
    const k = record.k ?? floor;
    const { outcome, settled } = await settle(ctx, n, vote, record, options, k, draw);
    if (settled === undefined && record.standing !== undefined) {
      // Raised past what the draws and judges left could settle: the decision before stands. A
      // raise asks for a wider margin; it must not turn a decision into a question.
      const { standing } = record;
      ctx.emit({
        type: 'vote-k-stood',
        nodeId: n.id,
        vote,
        k,
        stoodAt: standing.stoodAtK ?? floor,
      });
      return finish(ctx, n, vote, record, {
        ...standing,
        draws: outcome.draws,
        flagged: outcome.flagged,
        ...(outcome.classes === undefined ? {} : { classes: outcome.classes }),
      });
    }
    const next =
      settled === undefined
        ? undefined
        : adaptK(settled, {
            ceiling: kCeiling(floor),
            drawsLeft: maxCandidates - record.draws.length,
          });
    if (next?.narrow !== true || next.next === null) return finish(ctx, n, vote, record, outcome);
    const reason = next.reasons.join('; ');
    record.standing = { ...outcome, stoodAtK: k };
    record.k = next.next;
    record.kRaised = [...(record.kRaised ?? []), reason];
    await ctx.save(n);
    ctx.emit({ type: 'vote-k-raised', nodeId: n.id, vote, from: k, to: next.next, reason });
  }
}

/** Fresh slots for up to `count` draws, within the cap. */
function fresh(record: VoteRecord, maxCandidates: number, count: number): number[] {
  return Array.from(
    { length: Math.max(0, Math.min(count, maxCandidates - record.draws.length)) },
    (_, i) => record.draws.length + i,
  );
}

/**
 * The vote at margin `k` over the draws so far: more drawn while agreement can still come, then
 * judges. `settled`: what the adaptive rule reads, when the vote decided.
 */
async function settle(
  ctx: RunContext,
  n: TreeNode,
  vote: string,
  record: VoteRecord,
  options: CandidateVoteOptions,
  k: number,
  draw: (slots: readonly number[]) => Promise<unknown>,
): Promise<{ outcome: VoteOutcome; settled?: SettledVote }> {
  const { k: floor, maxCandidates } = ctx.run.config;
  // Agreement before judgement: drawn by the candidates' schedule, opened at the run's own k.
  const step = await agree(record, options, candidateSchedule(k, maxCandidates, floor), draw);
  if (step === 'stopped') return { outcome: stopped(record) };
  const standing = standingOf(ctx, record, k);
  const { classes, leader, base } = standing;
  if (leader === undefined)
    return { outcome: { status: 'undecided', votes: 0, runnerUpVotes: 0, ...base } };
  if (step.action === 'decided' || classes.length < 2)
    return agreement(standing, leader, step.action === 'decided');
  // Judges break the tie, among the classes the leader is not ahead of by k.
  const among = contenders(classes, leader.votes, k);
  const ballots = await castBallots(ctx, n, vote, record, options.ballot, among, k);
  return judged(standing, leader, ballots);
}

/**
 * Draws by `schedule` (fresh slots) until it stops; `stopped` when the caller's `stop`, read
 * before each step, ended the vote first.
 */
async function agree(
  record: VoteRecord,
  options: CandidateVoteOptions,
  schedule: VoteSchedule,
  draw: (slots: readonly number[]) => Promise<unknown>,
): Promise<VoteStep | 'stopped'> {
  for (;;) {
    if (options.stop?.(record.draws) === true) return 'stopped';
    const classes = tally(record.draws);
    const step = nextVoteStep(schedule, {
      draws: record.draws.length,
      valid: record.draws.filter((d) => d.status === 'valid').length,
      leaderVotes: classes[0]?.votes ?? 0,
      runnerUpVotes: classes[1]?.votes ?? 0,
    });
    if (step.action !== 'draw') return step;
    await draw(fresh(record, schedule.maxDraws, step.count));
  }
}

/** A candidate vote's classes once drawing stopped, and what every outcome of it says. */
interface Standing {
  readonly classes: readonly ClassTally[];
  readonly leader: ClassTally | undefined;
  readonly runnerUp: number;
  /** Red-flagged over the preset's limit: a person is asked even when the vote decided. */
  readonly confused: boolean;
  readonly base: Pick<VoteOutcome, 'draws' | 'flagged' | 'classes'>;
  readonly counts: Omit<SettledVote, 'settledBy'>;
}

function standingOf(ctx: RunContext, record: VoteRecord, k: number): Standing {
  const classes = tally(record.draws);
  const flagged = record.draws.filter((d) => d.status === 'flagged').length;
  const flagRate = record.draws.length === 0 ? 0 : flagged / record.draws.length;
  const leader = classes[0];
  const runnerUp = classes[1]?.votes ?? 0;
  return {
    classes,
    leader,
    runnerUp,
    confused: flagRate > ctx.run.config.maxFlagRate,
    base: {
      draws: record.draws.length,
      flagged,
      classes: classes.map((c) => ({ key: c.key, slots: c.members.map((m) => m.slot) })),
    },
    counts: {
      k,
      leaderVotes: leader?.votes ?? 0,
      runnerUpVotes: runnerUp,
      validDraws: record.draws.length - flagged,
      flaggedDraws: flagged,
    },
  };
}

/** The outcome without judges: one class only, or one ahead by k (`agreed`). */
function agreement(
  { runnerUp, confused, base, counts }: Standing,
  leader: ClassTally,
  agreed: boolean,
): { outcome: VoteOutcome; settled?: SettledVote } {
  return {
    outcome: {
      status: agreed && !confused ? 'decided' : 'undecided',
      key: leader.key,
      votes: leader.votes,
      runnerUpVotes: runnerUp,
      ...(agreed ? { settledBy: 'agreement' as const } : {}),
      ...base,
    },
    ...(agreed && !confused ? { settled: { ...counts, settledBy: 'agreement' as const } } : {}),
  };
}

/** The outcome the judges' `ballots` give; undecided, their favourite still leads the question. */
function judged(
  { classes, confused, base, counts }: Standing,
  leader: ClassTally,
  ballots: VoteResult<string>,
): { outcome: VoteOutcome; settled?: SettledVote } {
  const decided = ballots.status === 'decided';
  // Undecided, the judges' favourite still leads the question a person (or `--hitl auto`) answers.
  const favourite = decided ? ballots.key : (ballots.leader?.key ?? leader.key);
  const chosen = classes.find((c) => c.key === favourite) ?? leader;
  return {
    outcome: {
      status: decided && !confused ? 'decided' : 'undecided',
      key: chosen.key,
      votes: decided ? ballots.votes : chosen.votes,
      runnerUpVotes: ballots.runnerUpVotes,
      ...(decided ? { settledBy: 'ballots' as const } : {}),
      ...base,
    },
    ...(decided && !confused
      ? {
          settled: {
            ...counts,
            settledBy: 'ballots' as const,
            ballots: { lead: ballots.votes, second: ballots.runnerUpVotes },
            chosenVotes: chosen.votes,
          },
        }
      : {}),
  };
}

/** A vote its caller's `stop` ended: undecided, its leader as the draws so far have it. */
function stopped(record: VoteRecord): VoteOutcome {
  const classes = tally(record.draws);
  return {
    status: 'undecided',
    ...(classes[0] === undefined ? {} : { key: classes[0].key }),
    votes: classes[0]?.votes ?? 0,
    runnerUpVotes: classes[1]?.votes ?? 0,
    draws: record.draws.length,
    flagged: record.draws.filter((d) => d.status === 'flagged').length,
  };
}

function finish(
  ctx: RunContext,
  n: TreeNode,
  vote: string,
  record: VoteRecord,
  outcome: VoteOutcome,
): VoteOutcome {
  record.outcome = outcome;
  // Tallied from saved draws and ballots: after a crash, the same outcome again.
  saveSoon(ctx, n);
  // The samples' votes and the judges' ballots apart (the outcome counts ballots once judges decided).
  const counts = voteCounts(record);
  ctx.emit({
    type: 'vote-end',
    nodeId: n.id,
    vote,
    status: outcome.status,
    key: outcome.key,
    votes: counts.samples[0],
    runnerUpVotes: counts.samples[1],
    ...(counts.ballots === null
      ? {}
      : { ballots: `${counts.ballots.lead}:${counts.ballots.second}` }),
    ...(record.k === undefined ? {} : { k: record.k }),
  });
  return outcome;
}

/** Fresh votes `--hitl auto` starts for a node whose every candidate (or plan) was red-flagged. */
export const AUTO_RESAMPLES = 1;

/** The red flags of a vote's draws, by rule (`check-failed ×3, llm-review ×1`): what a question says. */
export function flagsSaid(draws: readonly Draw[]): string {
  const counts = new Map<string, number>();
  for (const d of draws) for (const f of d.flags) counts.set(f.rule, (counts.get(f.rule) ?? 0) + 1);
  return counts.size === 0 ? 'none' : [...counts].map(([rule, n]) => `${rule} ×${n}`).join(', ');
}

/** The samples' votes per class, and the judges' ballots apart: what a select question says. */
export function votesSaid(record: VoteRecord): string {
  const classes = tally(record.draws);
  const samples = classes
    .map((c, i) => `candidate ${i + 1}: ${c.votes} sample vote${c.votes === 1 ? '' : 's'}`)
    .join(', ');
  const ballots = ballotText(voteCounts(record));
  return [samples === '' ? null : samples, ballots].filter((p) => p !== null).join('; ');
}
