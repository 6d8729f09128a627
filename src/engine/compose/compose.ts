import type { TreeNode } from '../../core/tree/schema.js';
import { decideMinimal, decideSplit } from '../split/decompose.js';
import { integrate, mergeManifests, sideLabel } from './integrate.js';
import { moveBranch, solveLeaf } from '../leaf/leaf.js';
import { checkMerge, mergeCommands } from '../checks/merge-checks.js';
import { branchName, runDate } from '../run/naming.js';
import { intentLine, node } from '../context/node-context.js';
import { outward } from '../run/redaction.js';
import { RunStoppedError } from '../run/engine-errors.js';
import { saveSoon } from '../run/state-saver.js';
import type { RunContext } from '../run/run-context.js';
import { commitMessage } from '../../core/commit-message.js';
import { bringOnto } from './stale.js';

/**
 * Brings a node to `done` from `base`: decide whether it is minimal; a leaf is sampled, voted and
 * committed; a branch is split and its children are solved and merged bottom-up. Safe to call
 * again after a crash: every step skips what the state file says is finished.
 */
export async function processNode(
  ctx: RunContext,
  n: TreeNode,
  base: string,
  spawn: Spawn,
): Promise<void> {
  if (n.status === 'done') return;
  // A place among the nodes that work at once: given up before the node waits for its children.
  const leave = (await ctx.enter?.(n)) ?? (() => undefined);
  let split: boolean;
  try {
    split = await solveOrSplit(ctx, n, base);
  } finally {
    leave();
  }
  if (!split) return;
  n.status = 'composing';
  await composeChildren(ctx, n, spawn);
}

/** The node's own work: decided, and either solved as a leaf (false) or split (true). */
async function solveOrSplit(ctx: RunContext, n: TreeNode, base: string): Promise<boolean> {
  if (n.baseCommit === undefined) {
    // The base is the parent's saved head: after a crash, the same again.
    n.baseCommit = base;
    n.branch = branchName(ctx.run.id, n.id);
    n.status = 'deciding';
    saveSoon(ctx, n);
    ctx.emit({ type: 'node-start', nodeId: n.id, title: n.title });
  }
  const from = n.baseCommit;
  if (n.kind !== 'branch' && ctx.worker.prepare !== undefined)
    // In the background: a failure here shows up, if it matters, when the leaf is sampled.
    ctx.worker
      .prepare({ branch: branchName(ctx.run.id, n.id), baseCommit: from }, ctx.signal)
      .catch(() => undefined);
  if (n.kind === 'undecided') await decideMinimal(ctx, n);
  if (n.kind === 'leaf') {
    n.status = 'sampling';
    if ((await solveLeaf(ctx, n, from)) === 'done') return false;
  }
  n.status = 'splitting';
  if ((await decideSplit(ctx, n)) === 'leaf') {
    n.status = 'sampling';
    if ((await solveLeaf(ctx, n, from)) === 'done') return false;
    throw new RunStoppedError(`Node ${n.id} is at the node bound and cannot be split further.`);
  }
  return true;
}

/** Starts work whose completion the engine tracks (so a deferred run waits for all of it). */
export type Spawn = <T>(work: Promise<T>) => Promise<T>;

/**
 * Solves the children and merges them into the node's branch strictly in index order (a
 * topological order: dependencies point to earlier siblings), so the sequence of heads, and with it
 * the final tree, does not depend on timing. A child starts as soon as the siblings it depends on
 * are merged, from the head that contains exactly them.
 */
async function composeChildren(ctx: RunContext, n: TreeNode, spawn: Spawn): Promise<void> {
  const from = n.baseCommit as string;
  const branch = n.branch as string;
  if (n.mergeHeads.length === 0) {
    n.mergeHeads.push(from);
    await moveBranch(ctx, branch, from, from);
    await ctx.save(n);
  }
  const children = n.children.map((id) => node(ctx, id));
  const needs = (child: TreeNode) =>
    child.dependsOn.length === 0 ? 0 : Math.max(...child.dependsOn) + 1;
  const started = new Map<number, Promise<void>>();
  const startEligible = () => {
    for (const child of children) {
      const need = needs(child);
      if (!started.has(child.index) && n.mergeHeads.length > need) {
        const head = n.mergeHeads[need] as string;
        // A child started from an older head (a node before it was reopened) is brought onto it.
        const work = async () => {
          await bringOnto(ctx, child, head);
          await processNode(ctx, child, head, spawn);
        };
        started.set(child.index, spawn(work()));
      }
    }
  };
  for (const child of children) {
    startEligible();
    await started.get(child.index);
    if (n.mergeHeads.length > child.index + 1) continue; // merged before a crash
    await mergeChild(ctx, n, child);
  }
  n.commit = n.mergeHeads[n.mergeHeads.length - 1];
  n.status = 'done';
  await ctx.save(n);
}

/** Merges a finished child into the node's branch with a real merge commit; a conflict is integrated by vote. */
async function mergeChild(ctx: RunContext, n: TreeNode, child: TreeNode): Promise<void> {
  const ours = n.mergeHeads[child.index] as string;
  const theirs = child.commit as string;
  const lines = await ctx.workspace.merge(ours, theirs);
  // Shared manifests merge by their keys; what still conflicts is integrated by vote.
  const merged = lines.ok
    ? lines
    : await mergeManifests(ctx, lines, child.baseCommit, ours, theirs);
  let tree: string;
  let how = '';
  if (merged.ok) {
    tree = merged.tree;
  } else {
    ctx.emit({
      type: 'merge-conflict',
      nodeId: n.id,
      child: child.id,
      conflicts: merged.conflicts,
    });
    const earlier = n.children.slice(0, child.index).map((id) => node(ctx, id));
    tree = await integrate(ctx, n, {
      key: String(child.index),
      what: `"${child.title}"`,
      vote: `integrate-${child.id}`,
      ours,
      theirs,
      // The child started from a head of this branch: the merge's common ancestor.
      base: child.baseCommit,
      conflicted: merged.tree,
      conflicts: merged.conflicts,
      checks: mergeCommands(ctx, n, child).mustPass,
      sides: {
        ours: {
          label: sideLabel(`"${n.title}" so far`),
          intent: earlier.length === 0 ? [n.description] : earlier.map(intentLine),
        },
        theirs: { label: sideLabel(`"${child.title}"`), intent: [intentLine(child)] },
      },
    });
    how = `\n\nConflicts in ${merged.conflicts.join(', ')} resolved by a voted integration.`;
  }
  // The checks below run again on the merged tree; a merge that breaks one is repaired by vote.
  const checked = await checkMerge(ctx, n, child, { ours, theirs, tree });
  tree = checked.tree;
  how += checked.how;
  const message = outward(
    ctx,
    commitMessage(ctx.run.config, {
      subject: `Merge ${child.id}: ${child.title}`,
      body: how,
      trailers: [`Maker-Run: ${ctx.run.id}`, `Maker-Node: ${n.id}`, `Maker-Merged: ${child.id}`],
    }),
  );
  const commit = await ctx.workspace.commit({
    tree,
    parents: [ours, theirs],
    message,
    date: runDate(ctx.run),
  });
  await moveBranch(ctx, n.branch as string, commit, ours);
  n.mergeHeads.push(commit);
  await ctx.save(n);
  ctx.emit({ type: 'merge-end', nodeId: n.id, child: child.id, commit });
}
