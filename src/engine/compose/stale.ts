import type { TreeNode } from '../../core/tree/schema.js';
import { commitMessage } from '../../core/commit-message.js';
import { checksRun, runCheck } from '../checks/checks.js';
import { resetBranch } from './reopen.js';
import { branchName, runDate } from '../run/naming.js';
import { outward } from '../run/redaction.js';
import type { RunContext } from '../run/run-context.js';
import { sampleCounts } from '../../core/view/summary.js';

/**
 * Brings `child` onto `head`, the head of its parent's branch it builds on, when it was started
 * from another one (a node before it was reopened and redone since): a finished leaf's change is
 * applied on `head` and its check runs again there, and it is kept when both succeed; anything
 * else starts over from `head`, keeping what does not depend on the base (its minimal vote, a
 * branch's split and its children, which are brought over in turn when it composes). Nothing to
 * do for a child not started yet, or started from `head`. Safe to repeat after a crash.
 */
export async function bringOnto(ctx: RunContext, child: TreeNode, head: string): Promise<void> {
  if (child.baseCommit === undefined || child.baseCommit === head) return;
  if (await rebaseLeaf(ctx, child, head)) return;
  child.baseCommit = head;
  child.commit = undefined;
  child.blame = child.blames = undefined;
  child.checks = undefined;
  if (child.children.length > 0) {
    child.mergeHeads = [];
    child.integrations = {};
    if (child.status === 'done') child.status = 'composing';
  } else if (child.leaf !== undefined) {
    // Its candidates were made on the old base: a fresh vote (what was paid stays counted).
    child.leaf = {
      attempt: child.leaf.attempt + 1,
      draws: [],
      ballots: [],
      retired: sampleCounts(child.leaf),
    };
    if (child.status === 'done') child.status = 'sampling';
  }
  await resetBranch(ctx, child.branch ?? branchName(ctx.run.id, child.id), head);
  await ctx.save(child);
}

/**
 * A finished leaf's change applied on `head`, committed, its check run there (when checks run):
 * true when it is kept, false when it does not apply or its check fails there.
 */
async function rebaseLeaf(ctx: RunContext, n: TreeNode, head: string): Promise<boolean> {
  if (n.kind !== 'leaf' || n.status !== 'done' || n.commit === undefined) return false;
  const base = n.baseCommit as string;
  const applied = await ctx.workspace.applyPatch(head, await ctx.workspace.diff(base, n.commit));
  if (!applied.ok) return false;
  if (checksRun(ctx.run) && n.check !== undefined) {
    const command = n.check;
    const result = await ctx.paid(() => runCheck(ctx, applied.tree, command), { ahead: true });
    if (!result.ok) return false;
    n.checks = { tree: applied.tree, results: [result] };
  }
  const commit = await ctx.workspace.commit({
    tree: applied.tree,
    parents: [head],
    message: outward(
      ctx,
      commitMessage(ctx.run.config, {
        subject: n.title,
        body: 'The same change on the head it builds on, after an earlier node was reopened.',
        trailers: [
          `Maker-Run: ${ctx.run.id}`,
          `Maker-Node: ${n.id}`,
          `Maker-Rebased-From: ${n.commit}`,
        ],
      }),
    ),
    date: runDate(ctx.run),
  });
  const branch = n.branch ?? branchName(ctx.run.id, n.id);
  await resetBranch(ctx, branch, commit);
  n.baseCommit = head;
  n.commit = commit;
  await ctx.save(n);
  ctx.emit({ type: 'commit-end', nodeId: n.id, branch, commit });
  return true;
}
