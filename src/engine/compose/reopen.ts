import { MakerError } from '../../core/errors.js';
import type { Reopen, Run, TreeNode } from '../../core/tree/schema.js';
import type { Repository } from '../../ports/workspace.js';
import type { EngineEventInput } from '../events.js';
import { reopenLine } from '../../core/view/reopens.js';
import { sampleCounts } from '../../core/view/summary.js';

export { reopenLine };

/** How often one node may be reopened: a failure traced to it again after that is a person's to judge. */
export const MAX_REOPENS_PER_NODE = 2;
/** How many reopenings a run makes in all. */
export const MAX_REOPENS_PER_RUN = 8;

/**
 * Stops the run's work so that a reopening (saved on the run first) can be applied while nothing
 * runs: the engine applies it ({@link applyReopen}) and drives the run again, as a resume does.
 */
export class ReopenRequested extends MakerError {
  override readonly name = 'ReopenRequested';
  constructor(readonly reopen: Reopen) {
    super('reopen-requested', reopenLine(reopen));
  }
}

/** Whether `n` may be reopened now: a finished leaf under its own bound, in a run under its bound. */
export function mayReopen(run: Run, n: TreeNode): boolean {
  return (
    n.kind === 'leaf' &&
    n.status === 'done' &&
    n.commit !== undefined &&
    (n.reopen?.count ?? 0) < MAX_REOPENS_PER_NODE &&
    (run.reopens?.length ?? 0) < MAX_REOPENS_PER_RUN
  );
}

/**
 * Why none of `suspects` (finished leaves a failure builds on) may be reopened, when the bounds are
 * what stops it: said to the person who must now decide (a cycle of reopenings ends in a question,
 * not in another reopening). Undefined when there is no suspect, or one may still be reopened.
 */
export function reopenBound(run: Run, suspects: readonly TreeNode[]): string | undefined {
  if (suspects.length === 0 || suspects.some((s) => mayReopen(run, s))) return undefined;
  const made = run.reopens?.length ?? 0;
  if (made >= MAX_REOPENS_PER_RUN)
    return `MAKER reopens no earlier subtask for it: this run has made ${made} reopenings, its bound.`;
  const spent = suspects.filter((s) => (s.reopen?.count ?? 0) >= MAX_REOPENS_PER_NODE);
  if (spent.length === 0) return undefined;
  const names = spent.map((s) => `${s.id} (${s.title})`).join(', ');
  return `MAKER reopens no earlier subtask for it: ${names} ${spent.length === 1 ? 'was' : 'were'} reopened ${MAX_REOPENS_PER_NODE} times already, the bound per subtask; the failure may still be theirs.`;
}

/** Saves the reopening on the run (a resume applies it) and returns the error that stops the run's work. */
export async function requestReopen(
  ctx: { readonly run: Run; save(): Promise<void> },
  reopen: Reopen,
): Promise<ReopenRequested> {
  ctx.run.reopening = reopen;
  await ctx.save();
  return new ReopenRequested(reopen);
}

/** What applying a reopening needs: the run, its workspace, saving and events. */
export interface ReopenContext {
  readonly run: Run;
  readonly workspace: Repository;
  save(): Promise<void>;
  emit(event: EngineEventInput): void;
  publish?(branch: string, sha: string): void;
}

/**
 * Applies the run's saved reopening, while none of its work runs: the node's result is set aside
 * (its commit kept under an audit ref), its branch goes back to its base, and its vote starts over
 * with the winning class excluded and the failure as evidence; every ancestor's composition is
 * undone from the child on the node's path (their branches back to the head before it). Nodes
 * after it keep their work: when their parent composes them again, each is brought onto the new
 * heads (`stale.ts`). The refs move before the one save that clears `reopening`, so a crash
 * anywhere in between applies it again and finds them moved.
 */
export async function applyReopen(ctx: ReopenContext, reopen: Reopen): Promise<void> {
  const { run } = ctx;
  const n = run.nodes[reopen.node];
  if (n === undefined || n.commit === undefined) {
    // Applied before a crash (the node's commit is what the reopening sets aside), or gone.
    run.reopening = undefined;
    await ctx.save();
    return;
  }
  const count = (n.reopen?.count ?? 0) + 1;
  const branch = n.branch;
  if (branch !== undefined) {
    const audit = `${branch}-reopened-${count}`;
    if ((await ctx.workspace.resolve(audit)) === undefined)
      await ctx.workspace.setBranch(audit, n.commit, null);
    if (n.baseCommit !== undefined) await resetBranch(ctx, branch, n.baseCommit);
  }
  const heads: [string, string][] = [];
  for (let child = n, p = parentOf(run, n); p !== undefined; child = p, p = parentOf(run, p)) {
    const kept = p.mergeHeads.slice(0, child.index + 1);
    const head = kept[kept.length - 1];
    if (p.branch !== undefined && head !== undefined) heads.push([p.branch, head]);
  }
  for (const [b, head] of heads) await resetBranch(ctx, b, head);
  reset(run, n, reopen, count);
  run.reopens = [...(run.reopens ?? []), { ...reopen, replaced: reopen.replaced ?? n.commit }];
  run.reopening = undefined;
  n.commit = undefined;
  await ctx.save();
  ctx.emit({
    type: 'node-reopened',
    nodeId: n.id,
    trigger: reopen.trigger.node,
    reason: reopenLine(reopen, run),
  });
}

/** The state half of {@link applyReopen}: the node's vote and its ancestors' compositions. */
function reset(run: Run, n: TreeNode, reopen: Reopen, count: number): void {
  const before = n.reopen;
  n.reopen = {
    count,
    excluded: [
      ...new Set([
        ...(before?.excluded ?? []),
        ...[reopen.excluded, reopen.excludedAlias].filter((k): k is string => k !== undefined),
      ]),
    ],
    evidence: [
      ...(before?.evidence ?? []),
      ...(reopen.evidence === undefined ? [] : [reopen.evidence]),
    ],
    reasons: [...(before?.reasons ?? []), `${reopen.trigger.title}: ${reopen.signature}`],
  };
  n.leaf = {
    attempt: (n.leaf?.attempt ?? 0) + 1,
    draws: [],
    ballots: [],
    ...(n.leaf === undefined ? {} : { retired: sampleCounts(n.leaf) }),
  };
  n.status = 'sampling';
  n.checks = undefined;
  n.blame = undefined;
  for (let child = n, p = parentOf(run, n); p !== undefined; child = p, p = parentOf(run, p)) {
    p.mergeHeads = p.mergeHeads.slice(0, child.index + 1);
    p.integrations = Object.fromEntries(
      Object.entries(p.integrations).filter(([key]) => {
        const index = /^(\d+)/.exec(key)?.[1];
        return index === undefined || Number(index) < child.index;
      }),
    );
    p.commit = undefined;
    p.checks = p.blames = undefined;
    if (p.status === 'done') p.status = 'composing';
  }
}

function parentOf(run: Run, n: TreeNode): TreeNode | undefined {
  return n.parentId === null ? undefined : run.nodes[n.parentId];
}

/** Moves a branch MAKER owns to `to` from wherever it is (a reopening rewinds it), and publishes it. */
export async function resetBranch(
  ctx: Pick<ReopenContext, 'workspace' | 'publish'>,
  branch: string,
  to: string,
): Promise<void> {
  const current = await ctx.workspace.resolve(branch);
  if (current !== to) await ctx.workspace.setBranch(branch, to, current ?? null);
  ctx.publish?.(branch, to);
}
