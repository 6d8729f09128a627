import { checksBelow, nodeResults, type CheckResult } from '../../core/checks.js';
import { clip } from '../../core/limits.js';
import type { TreeNode } from '../../core/tree/schema.js';
import type { WorkerTask } from '../../ports/worker.js';
import { checkNode, checksRun } from './checks.js';
import { candidateTree, voteOnCode } from '../leaf/leaf.js';
import { nodeContext, repositoryView } from '../context/node-context.js';
import type { RunContext } from '../run/run-context.js';
import { traceComposition } from '../compose/trace.js';

/**
 * The checks after merging `child` into `n`: every check below the children merged so far (and
 * the node's own after its last child; the root's own, the person's overall check, runs before the
 * veto) runs on the merged tree. A check that passed below and fails now is the merge's failure:
 * the merge is repaired by a voted integration, with the failures in its prompt, whose candidates
 * must pass every such check; past the vote's caps it is a question, like any vote. Before that,
 * a failure (or the node's own check failing on its composed result) is traced by vote to a
 * finished subtask whose result is in the tree: one found is reopened ({@link traceComposition}).
 */
export async function checkMerge(
  ctx: RunContext,
  n: TreeNode,
  child: TreeNode,
  merge: { readonly ours: string; readonly theirs: string; readonly tree: string },
): Promise<{ tree: string; how: string }> {
  const { commands, mustPass } = mergeCommands(ctx, n, child);
  if (commands.length === 0) return { tree: merge.tree, how: '' };
  const results = await checkNode(ctx, n, merge.tree, commands);
  const failing = results.filter((r) => !r.ok && mustPass.includes(r.command));
  // The node's own check, run for the first time on its composed result.
  const own = results.filter((r) => !r.ok && r.command === n.check && !failing.includes(r));
  // A cause found in a finished subtask's result is reopened there, not repaired here.
  const reopen = await traceComposition(ctx, n, {
    kind: failing.length > 0 ? 'merge' : 'parent-check',
    key: `merge-${child.index}`,
    failing: [...failing, ...own],
    tree: merge.tree,
    children: child.index + 1,
  });
  if (reopen !== undefined) throw reopen;
  if (failing.length === 0) return { tree: merge.tree, how: '' };
  ctx.emit({
    type: 'merge-checks-failed',
    nodeId: n.id,
    child: child.id,
    commands: failing.map((r) => r.command),
  });
  const tree = await repairMerge(ctx, n, {
    key: `${child.index}-checks`,
    what: `"${child.title}"`,
    vote: `repair-${child.id}`,
    from: child.id,
    ours: merge.ours,
    merged: merge.tree,
    checks: mustPass,
    failing,
    scope: filesBelow(ctx, n, child.index + 1),
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
export function mergeCommands(
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
  merge: {
    /** Where its vote is kept in `n.integrations`: `<child index>-checks`. */
    readonly key: string;
    readonly what: string;
    readonly vote: string;
    readonly from: string;
    readonly ours: string;
    /** The merged tree the checks failed on: the candidates' base. */
    readonly merged: string;
    /** Commands every candidate must pass. */
    readonly checks: readonly string[];
    readonly failing: readonly CheckResult[];
    /** What the candidates may change: the files of everything merged so far. */
    readonly scope: readonly string[];
  },
): Promise<string> {
  const broken = merge;
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
        base: merge.merged,
        scope: broken.scope,
        dependencies: [],
      }),
      task: {
        title: `Repair the merge of ${merge.what} into "${n.title}"`,
        description: `Merging ${merge.from} into ${n.id} broke checks that passed on each side alone. Change the files so that every check passes again, keeping both sides' intent. What fails on the merged tree:\n\n${failures}`,
        acceptance: merge.checks.map((c) => `\`${c}\` passes`),
        files: [...broken.scope],
        dependsOn: [],
      },
    },
    baseCommit: merge.merged,
    branch: n.branch as string,
    checks: merge.checks,
  };
  const winner = await voteOnCode(ctx, n, record, merge.vote, task, broken.scope, {
    parent: merge.ours,
  });
  if (winner === 'split') throw new Error('unreachable: repairs cannot be split');
  return candidateTree(winner);
}
