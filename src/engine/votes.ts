import { AbortedError } from '../core/errors.js';
import { hashString, shuffle, uniform } from '../core/random.js';
import { voteClasses, type VoteClass } from '../core/voting/classes.js';
import { firstToAheadByK } from '../core/voting/first-to-ahead-by-k.js';
import type { RedFlag } from '../core/voting/types.js';
import type { Draw, TreeNode, VoteOutcome, VoteRecord } from '../core/tree/schema.js';
import { initialCandidates } from '../core/tree/presets.js';
import { ballotText, voteCounts } from '../core/view/display.js';
import type { BallotOption } from '../ports/planner.js';
import type { CheckResult } from './checks.js';
import { saveSoon, type RunContext } from './run-context.js';
import type { HeldSlot } from './semaphore.js';

/** A draw's result before it is recorded. */
export type DrawResult =
  | {
      readonly ok: true;
      readonly key: string;
      readonly value: unknown;
      /** A code candidate: its key up to local names, and its tree. */
      readonly alias?: string | undefined;
      readonly tree?: string | undefined;
      readonly summary?: string | undefined;
      readonly externalId?: string | undefined;
      readonly check?: CheckResult | undefined;
    }
  | {
      readonly ok: false;
      readonly flags: readonly RedFlag[];
      readonly externalId?: string | undefined;
      readonly check?: CheckResult | undefined;
      /** A code candidate's tree, when its check ran and failed (a reopening replays it). */
      readonly tree?: string | undefined;
      /** A worker asked for these paths, outside its list, instead of answering. */
      readonly needsFiles?: readonly string[] | undefined;
    };

/**
 * Draws one slot of a vote, exactly once across crashes: a finished slot is returned as recorded;
 * otherwise the slot is recorded as started (and saved) before the paid work is awaited, and its
 * result is saved the moment it arrives. `produce` runs in one of the run's paid slots, unless it
 * `paysItself` (takes slots for its own paid calls only, see {@link CandidateVoteOptions}); with
 * `claimsFirst` too, its first paid call's slot is taken before `produce` starts, and given to it.
 */
export async function drawSlot(
  ctx: RunContext,
  n: TreeNode,
  vote: string,
  list: Draw[],
  slot: number,
  produce: (started: Draw, resumed: boolean, first?: HeldSlot) => Promise<DrawResult>,
  paysItself = false,
  claimsFirst = false,
): Promise<Draw> {
  const existing = list[slot];
  if (existing !== undefined && existing.status !== 'started') return existing;
  // Halted: a worker that limits itself (outside the paid slots) starts no more sessions either.
  if (ctx.halt?.aborted === true) throw new AbortedError(ctx.halt.reason);
  const started: Draw = existing ?? { slot, status: 'started', flags: [] };
  if (existing === undefined) {
    list[slot] = started;
    await ctx.save(n);
  }
  const resumed = existing !== undefined;
  // Claiming first, the draw waits in line for its first paid slot holding only this frame: what
  // `produce` builds (a worker's hooks, the candidate's frames) is made once the slot is there (a
  // vote's draws all start at once, and most wait). The slot is freed if `produce` does not use it.
  const first =
    paysItself && claimsFirst && ctx.claim !== undefined ? await ctx.claim() : undefined;
  let result: DrawResult;
  try {
    result = await (paysItself
      ? produce(started, resumed, first)
      : ctx.paid(() => produce(started, resumed)));
  } finally {
    first?.release();
  }
  const draw: Draw = result.ok
    ? {
        slot,
        status: 'valid',
        key: sameText(list, 'key', result.key),
        value: result.value,
        ...(result.alias === undefined ? {} : { alias: sameText(list, 'alias', result.alias) }),
        ...(result.tree === undefined ? {} : { tree: sameText(list, 'tree', result.tree) }),
        flags: [],
        ...(result.summary === undefined
          ? {}
          : { summary: sameText(list, 'summary', result.summary) }),
        ...(result.externalId === undefined ? {} : { externalId: result.externalId }),
        ...(result.check === undefined ? {} : { check: result.check }),
      }
    : {
        slot,
        status: 'flagged',
        flags: [...result.flags],
        ...(result.externalId === undefined ? {} : { externalId: result.externalId }),
        ...(result.check === undefined ? {} : { check: result.check }),
        ...(result.tree === undefined ? {} : { tree: result.tree }),
      };
  list[slot] = draw;
  await ctx.save(n);
  if (draw.status === 'valid')
    ctx.emit({ type: 'sample-drawn', nodeId: n.id, vote, slot, key: draw.key ?? '' });
  else ctx.emit({ type: 'sample-flagged', nodeId: n.id, vote, slot, flags: draw.flags });
  return draw;
}

/**
 * `text`, or the equal string another draw of the vote holds in `field`: agreeing candidates'
 * keys, aliases and trees (hashes, made anew by each) are then kept once for the whole run.
 */
function sameText(
  list: readonly (Draw | undefined)[],
  field: 'key' | 'alias' | 'tree' | 'summary',
  text: string,
): string {
  for (const d of list) {
    const other = d?.[field];
    if (other === text) return other;
  }
  return text;
}

/** Runs every draw, waits for all, then rethrows the first failure (no work is left dangling). */
async function settleAll<T>(work: readonly Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(work);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

export type ClassTally = VoteClass;

/** Valid draws grouped into their classes, most votes first (earliest first among equals). */
export function tally(draws: readonly (Draw | undefined)[]): ClassTally[] {
  return voteClasses(draws);
}

/** A yes/no (or any exact-match) vote: first-to-ahead-by-k over recorded draws, initial batch k. */
export async function exactVote(
  ctx: RunContext,
  n: TreeNode,
  vote: string,
  record: VoteRecord,
  produce: (slot: number) => Promise<DrawResult>,
): Promise<VoteOutcome> {
  if (record.outcome !== undefined) return record.outcome;
  const { k, maxCandidates } = ctx.run.config;
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
  readonly ballot: {
    readonly question: string;
    readonly render: (representative: Draw) => string | Promise<string>;
    readonly cast: (
      question: string,
      options: readonly BallotOption[],
      slot: number,
    ) => Promise<DrawResult>;
  };
}

/**
 * The vote for expensive candidates (patches, splits). 2k − 1 valid candidates are drawn in
 * parallel, flagged ones replaced. Agreement first: while no class leads by k and one still can
 * within the cap, more are drawn (k − lead at a time, the most that cannot overshoot). Only then do
 * judges break the tie, with ballots (order shuffled per ballot) among the classes the leader is not
 * ahead of by k, counted ahead-by-k. A vote the judges cannot settle, or one with a red-flag rate
 * over the preset's limit (its ballots still cast first), comes back `undecided` for a person,
 * its key the class the judges favour.
 */
export async function candidateVote(
  ctx: RunContext,
  n: TreeNode,
  vote: string,
  record: VoteRecord,
  options: CandidateVoteOptions,
): Promise<VoteOutcome> {
  if (record.outcome !== undefined) return record.outcome;
  const { k, maxCandidates, maxBallots, maxFlagRate } = ctx.run.config;
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
  const fresh = (count: number) =>
    Array.from(
      { length: Math.max(0, Math.min(count, maxCandidates - record.draws.length)) },
      (_, i) => record.draws.length + i,
    );
  // Slots a crash left started: finished first, with what they recorded.
  await draw(record.draws.filter((d) => d.status === 'started').map((d) => d.slot));
  const target = initialCandidates(k);
  for (;;) {
    const valid = record.draws.filter((d) => d.status === 'valid').length;
    if (valid >= target || record.draws.length >= maxCandidates) break;
    await draw(fresh(target - valid));
  }
  // Agreement before judgement: draw more while a class can still get ahead by k within the cap.
  for (;;) {
    const classes = tally(record.draws);
    const leader = classes[0]?.votes ?? 0;
    const lead = leader - (classes[1]?.votes ?? 0);
    const left = maxCandidates - record.draws.length;
    if (lead >= k || left <= 0 || classes.length === 0) break;
    // The runner-up's votes stay; the most the leader can gain is every draw left.
    if (lead + left < k) break;
    await draw(fresh(k - lead));
  }

  const classes = tally(record.draws);
  const flagged = record.draws.filter((d) => d.status === 'flagged').length;
  const flagRate = record.draws.length === 0 ? 0 : flagged / record.draws.length;
  const leader = classes[0];
  const runnerUp = classes[1]?.votes ?? 0;
  const base = {
    draws: record.draws.length,
    flagged,
    classes: classes.map((c) => ({ key: c.key, slots: c.members.map((m) => m.slot) })),
  };
  if (leader === undefined)
    return finish(ctx, n, vote, record, {
      status: 'undecided',
      votes: 0,
      runnerUpVotes: 0,
      ...base,
    });
  const confused = flagRate > maxFlagRate;
  if (leader.votes - runnerUp >= k || classes.length < 2)
    return finish(ctx, n, vote, record, {
      status: leader.votes - runnerUp >= k && !confused ? 'decided' : 'undecided',
      key: leader.key,
      votes: leader.votes,
      runnerUpVotes: runnerUp,
      ...(leader.votes - runnerUp >= k ? { settledBy: 'agreement' as const } : {}),
      ...base,
    });

  // Judges break the tie, among the classes the leader is not ahead of by k.
  const contenders = classes.filter((c) => leader.votes - c.votes < k);
  const salt = hashString(`${n.id}/${vote}/${record.attempt}`);
  const ballots = await firstToAheadByK({
    k,
    maxDraws: maxBallots,
    keyOf: (key: string) => key,
    signal: ctx.signal,
    sample: async ({ draw }) => {
      const d = await drawSlot(ctx, n, `${vote}-ballot`, record.ballots, draw, async () => {
        const order = shuffle(contenders, (i) => uniform(ctx.run.config.seed, salt, draw, i));
        const labelled = await Promise.all(
          order.map(async (c, i) => ({
            label: String.fromCharCode(65 + i),
            content: await options.ballot.render(c.representative),
            key: c.key,
          })),
        );
        return options.ballot
          .cast(
            options.ballot.question,
            labelled.map(({ label, content }) => ({ label, content })),
            draw,
          )
          .then((r) => {
            if (!r.ok) return r;
            const chosen = labelled.find((o) => o.label === r.key);
            return chosen === undefined
              ? {
                  ok: false as const,
                  flags: [
                    {
                      rule: 'ballot-choice',
                      message: `The judge chose "${r.key}", which is not an option.`,
                    },
                  ],
                }
              : { ok: true as const, key: chosen.key, value: chosen.label, summary: r.summary };
          });
      });
      return d.status === 'valid'
        ? { ok: true, value: d.key ?? '' }
        : { ok: false, flags: d.flags };
    },
  });
  const decided = ballots.status === 'decided';
  // Undecided, the judges' favourite still leads the question a person (or `--hitl auto`) answers.
  const favourite = decided ? ballots.key : (ballots.leader?.key ?? leader.key);
  const chosen = classes.find((c) => c.key === favourite) ?? leader;
  return finish(ctx, n, vote, record, {
    status: decided && !confused ? 'decided' : 'undecided',
    key: chosen.key,
    votes: decided ? ballots.votes : chosen.votes,
    runnerUpVotes: ballots.runnerUpVotes,
    ...(decided ? { settledBy: 'ballots' as const } : {}),
    ...base,
  });
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
  });
  return outcome;
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
