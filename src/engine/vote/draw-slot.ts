import { AbortedError } from '../../core/errors.js';
import type { RedFlag } from '../../core/voting/types.js';
import type { Draw, TreeNode } from '../../core/tree/schema.js';
import type { DrawBehaviour } from '../../core/tree/probe-schema.js';
import type { CheckResult } from '../checks/checks.js';
import type { RunContext } from '../run/run-context.js';
import type { HeldSlot } from '../../core/semaphore.js';

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
      /** A code candidate's run under its leaf's probe (`probe.ts`). */
      readonly behaviour?: DrawBehaviour | undefined;
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
      /** Flagged only for failing the leaf's acceptance test: how, and its text (`core/voting/test-contest.ts`). */
      readonly contests?: { readonly failure: string; readonly text: string } | undefined;
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
        ...(result.behaviour === undefined ? {} : { behaviour: result.behaviour }),
      }
    : {
        slot,
        status: 'flagged',
        flags: [...result.flags],
        ...(result.externalId === undefined ? {} : { externalId: result.externalId }),
        ...(result.check === undefined ? {} : { check: result.check }),
        ...(result.tree === undefined ? {} : { tree: result.tree }),
        ...(result.contests === undefined ? {} : { contests: result.contests }),
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
export async function settleAll<T>(work: readonly Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(work);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}
