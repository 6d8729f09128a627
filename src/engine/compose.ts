import type { TreeNode } from '../core/tree/schema.js';
import type { WorkerTask } from '../ports/worker.js';
import { decideMinimal, decideSplit } from './decompose.js';
import { candidateTree, moveBranch, solveLeaf, voteOnCode } from './leaf.js';
import {
  branchName,
  node,
  nodeContext,
  outward,
  repositoryView,
  runDate,
  RunStoppedError,
  saveSoon,
  type RunContext,
} from './run-context.js';
import { commitMessage } from '../core/tree/simulated.js';
import { checksBelow, nodeResults, type CheckResult } from '../core/checks.js';
import { clip } from '../core/limits.js';
import { checkNode, checksRun } from './checks.js';

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
    if ((await solveLeaf(ctx, n, from)) === 'done') return;
  }
  n.status = 'splitting';
  if ((await decideSplit(ctx, n)) === 'leaf') {
    n.status = 'sampling';
    if ((await solveLeaf(ctx, n, from)) === 'done') return;
    throw new RunStoppedError(`Node ${n.id} is at the node bound and cannot be split further.`);
  }
  n.status = 'composing';
  await composeChildren(ctx, n, spawn);
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
        started.set(
          child.index,
          spawn(processNode(ctx, child, n.mergeHeads[need] as string, spawn)),
        );
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
  const merged = await ctx.workspace.merge(ours, theirs);
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
    tree = await integrate(ctx, n, {
      key: String(child.index),
      what: `"${child.title}"`,
      vote: `integrate-${child.id}`,
      from: child.id,
      ours,
      theirs,
      conflicted: merged.tree,
      conflicts: merged.conflicts,
      checks: mergeCommands(ctx, n, child).mustPass,
    });
    how = `\n\nConflicts in ${merged.conflicts.join(', ')} resolved by a voted integration.`;
  }
  const checked = await checkMerge(ctx, n, child, { ours, theirs, tree });
  tree = checked.tree;
  how += checked.how;
  const message = outward(
    ctx,
    commitMessage(
      ctx.run.config,
      `Merge ${child.id}: ${child.title}${how}\n\nMaker-Run: ${ctx.run.id}\nMaker-Node: ${n.id}\nMaker-Merged: ${child.id}`,
    ),
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

/** An integration subtask: workers reconcile the conflicting files, and the results are voted like any leaf. */
export async function integrate(
  ctx: RunContext,
  n: TreeNode,
  merge: {
    /** Where its vote is kept in `n.integrations` (a child's index; `base-<n>` for a moved default branch). */
    readonly key: string;
    /** What is merged in, for the task's title: `"<child title>"`. */
    readonly what: string;
    readonly vote: string;
    /** What is merged in, for the description: a child's id, or a branch. */
    readonly from: string;
    readonly ours: string;
    readonly theirs: string;
    /** The merge's tree: both sides' clean changes, conflict markers in the conflicts. */
    readonly conflicted: string;
    readonly conflicts: readonly string[];
    /** Commands every candidate must pass (the checks that passed below the merge). */
    readonly checks?: readonly string[];
    /**
     * The merge applied cleanly (or was integrated) but broke these checks, which passed below it:
     * the candidates fix the merged tree, within `scope`, with the failures in their prompt.
     */
    readonly broken?: {
      readonly failing: readonly CheckResult[];
      readonly scope: readonly string[];
    };
  },
): Promise<string> {
  if (merge.broken !== undefined) return repairMerge(ctx, n, merge, merge.broken);
  const { conflicts } = merge;
  const record = (n.integrations[merge.key] ??= {
    attempt: 0,
    draws: [],
    ballots: [],
    conflicts: [...conflicts],
  });
  const task: WorkerTask = {
    context: {
      ...nodeContext(ctx, n),
      // The merge's own tree, the conflicting files in scope.
      repository: repositoryView(ctx, n, {
        base: merge.conflicted,
        scope: conflicts,
        dependencies: [],
      }),
      task: {
        title: `Integrate ${merge.what} into "${n.title}"`,
        description: `Merging ${merge.from} into ${n.id} conflicts in ${conflicts.join(', ')}. Produce the files with both sides' intent preserved.`,
        acceptance: ['Both sides of every conflict are reconciled', 'No conflict markers remain'],
        files: [...conflicts],
        dependsOn: [],
      },
    },
    // Candidates edit the merge's own tree: both sides' clean changes, markers in the conflicts.
    baseCommit: merge.conflicted,
    ...(merge.checks === undefined ? {} : { checks: merge.checks }),
    branch: n.branch as string,
    integration: {
      conflicts,
      ours: await ctx.workspace.readFiles(merge.ours, conflicts),
      theirs: await ctx.workspace.readFiles(merge.theirs, conflicts),
    },
  };
  const winner = await voteOnCode(ctx, n, record, merge.vote, task, conflicts, merge.ours);
  if (winner === 'split') throw new Error('unreachable: integrations cannot be split');
  return candidateTree(winner);
}

/**
 * The checks after merging `child` into `n`: every check below the children merged so far (and
 * the node's own after its last child; the root's own, the person's overall check, runs before the
 * veto) runs on the merged tree. A check that passed below and fails now is the merge's failure:
 * the merge is repaired by a voted integration, with the failures in its prompt, whose candidates
 * must pass every such check; past the vote's caps it is a question, like any vote.
 */
async function checkMerge(
  ctx: RunContext,
  n: TreeNode,
  child: TreeNode,
  merge: { readonly ours: string; readonly theirs: string; readonly tree: string },
): Promise<{ tree: string; how: string }> {
  const { commands, mustPass } = mergeCommands(ctx, n, child);
  if (commands.length === 0) return { tree: merge.tree, how: '' };
  const results = await checkNode(ctx, n, merge.tree, commands);
  const failing = results.filter((r) => !r.ok && mustPass.includes(r.command));
  if (failing.length === 0) return { tree: merge.tree, how: '' };
  ctx.emit({
    type: 'merge-checks-failed',
    nodeId: n.id,
    child: child.id,
    commands: failing.map((r) => r.command),
  });
  const tree = await integrate(ctx, n, {
    key: `${child.index}-checks`,
    what: `"${child.title}"`,
    vote: `repair-${child.id}`,
    from: child.id,
    ours: merge.ours,
    theirs: merge.theirs,
    conflicted: merge.tree,
    conflicts: [],
    checks: mustPass,
    broken: { failing, scope: filesBelow(ctx, n, child.index + 1) },
  });
  await checkNode(ctx, n, tree, commands);
  return {
    tree,
    how: `\n\nChecks the merge broke (${failing.map((r) => `\`${r.command}\``).join(', ')}) repaired by a voted integration.`,
  };
}

/**
 * The checks a merge of `child` into `n` runs (see {@link checkMerge}), and those of them that
 * passed below it (on the child's result, or on the node's result before this merge).
 */
function mergeCommands(
  ctx: RunContext,
  n: TreeNode,
  child: TreeNode,
): { commands: string[]; mustPass: string[] } {
  if (!checksRun(ctx.run)) return { commands: [], mustPass: [] };
  const last = child.index === n.children.length - 1;
  const commands = checksBelow(ctx.run, n, {
    children: child.index + 1,
    own: last && n.parentId !== null,
  });
  const passed = new Set<string>();
  const before = n.mergeHeads[child.index];
  const previous =
    n.checks !== undefined && child.index > 0 && before !== undefined ? n.checks.results : [];
  for (const r of [...previous, ...nodeResults(child), ...descendantResults(ctx, child)])
    if (r.ok) passed.add(r.command);
  return { commands, mustPass: commands.filter((c) => passed.has(c)) };
}

/** The results recorded below `n` (its descendants' latest), for what passed below a merge. */
function descendantResults(ctx: RunContext, n: TreeNode): CheckResult[] {
  return n.children.flatMap((id) => {
    const c = ctx.run.nodes[id];
    return c === undefined ? [] : [...nodeResults(c), ...descendantResults(ctx, c)];
  });
}

/** The files of `n` and of everything below its first `children` children: a repair's scope. */
function filesBelow(ctx: RunContext, n: TreeNode, children: number): string[] {
  const files = new Set<string>(n.files);
  const walk = (id: string) => {
    const c = ctx.run.nodes[id];
    if (c === undefined) return;
    for (const f of c.files) files.add(f);
    c.children.forEach(walk);
  };
  n.children.slice(0, children).forEach(walk);
  return [...files];
}

/** A repair of a merge that broke checks: a code vote on the merged tree, told what fails. */
async function repairMerge(
  ctx: RunContext,
  n: TreeNode,
  merge: Parameters<typeof integrate>[2],
  broken: NonNullable<Parameters<typeof integrate>[2]['broken']>,
): Promise<string> {
  const record = (n.integrations[merge.key] ??= {
    attempt: 0,
    draws: [],
    ballots: [],
    conflicts: [],
  });
  const failures = broken.failing
    .map((r) => `$ ${r.command}\n${clip(r.output, 1500)}`)
    .join('\n\n');
  const task: WorkerTask = {
    context: {
      ...nodeContext(ctx, n),
      repository: repositoryView(ctx, n, {
        base: merge.conflicted,
        scope: broken.scope,
        dependencies: [],
      }),
      task: {
        title: `Repair the merge of ${merge.what} into "${n.title}"`,
        description: `Merging ${merge.from} into ${n.id} broke checks that passed on each side alone. Change the files so that every check passes again, keeping both sides' intent. What fails on the merged tree:\n\n${failures}`,
        acceptance: merge.checks?.map((c) => `\`${c}\` passes`) ?? [],
        files: [...broken.scope],
        dependsOn: [],
      },
    },
    baseCommit: merge.conflicted,
    branch: n.branch as string,
    ...(merge.checks === undefined ? {} : { checks: merge.checks }),
  };
  const winner = await voteOnCode(ctx, n, record, merge.vote, task, broken.scope, merge.ours);
  if (winner === 'split') throw new Error('unreachable: repairs cannot be split');
  return candidateTree(winner);
}
