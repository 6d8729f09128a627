import { markerLabel, relabelConflictMarkers } from '../../core/conflicts.js';
import { clip } from '../../core/limits.js';
import { manifestKind, mergeManifest } from '../../core/manifest-merge.js';
import type { TreeNode } from '../../core/tree/schema.js';
import type { IntegrationSide, WorkerTask } from '../../ports/worker.js';
import type { MergeResult } from '../../ports/workspace.js';
import { candidateTree, voteOnCode } from '../leaf/leaf.js';
import { nodeContext, repositoryView } from '../context/node-context.js';
import type { RunContext } from '../run/run-context.js';

/** A merge that conflicted, as an integration subtask sees it. */
export interface ConflictedMerge {
  /** Where its vote is kept in `n.integrations` (a child's index; `base-<n>` for a moved default branch). */
  readonly key: string;
  /** What is merged in, for the task's title: `"<child title>"`. */
  readonly what: string;
  readonly vote: string;
  readonly ours: string;
  readonly theirs: string;
  /** The common ancestor of `ours` and `theirs`, when known. */
  readonly base: string | undefined;
  /** The merge's tree: both sides' clean changes, conflict markers in the conflicts. */
  readonly conflicted: string;
  readonly conflicts: readonly string[];
  /** What each side is called (in markers and prompts) and what its work set out to do. */
  readonly sides: { readonly ours: IntegrationSide; readonly theirs: IntegrationSide };
  /** Commands every candidate must pass (the checks that passed below the merge). */
  readonly checks?: readonly string[];
}

/**
 * An integration subtask: workers reconcile the conflicting files, and the results are voted like
 * any leaf. It is a task of its own: workers, reviews and ballots are told what the two sides set
 * out to do, not the node's task (which both sides serve, and whose files the conflict rarely
 * covers). Conflict markers name the sides, never commit ids, so the same merge in another run (a
 * replay) asks the same question. Returns the winning tree.
 */
export async function integrate(
  ctx: RunContext,
  n: TreeNode,
  merge: ConflictedMerge,
): Promise<string> {
  const { conflicts, sides } = merge;
  const record = (n.integrations[merge.key] ??= {
    attempt: 0,
    draws: [],
    ballots: [],
    conflicts: [...conflicts],
  });
  const labels = { ours: sides.ours.label, theirs: sides.theirs.label };
  const conflicted = await labelMarkers(ctx, merge.conflicted, conflicts, labels);
  const outer = nodeContext(ctx, n);
  const intent = (side: IntegrationSide) =>
    `${side.label}:\n${side.intent.map((i) => `- ${i}`).join('\n')}`;
  const task: WorkerTask = {
    context: {
      ...outer,
      ancestors: [...outer.ancestors, n.title],
      // The merge's own tree, the conflicting files in scope.
      repository: repositoryView(ctx, n, { base: conflicted, scope: conflicts, dependencies: [] }),
      task: {
        title: `Integrate ${merge.what} into "${n.title}"`,
        description: clip(
          `Two lines of work were merged and conflict in ${conflicts.join(', ')}. Write each of these files so that it does what both sides set out to do.\n${intent(sides.ours)}\n${intent(sides.theirs)}`,
          3900,
        ),
        acceptance: [
          'Every conflicting file keeps what both sides set out to do',
          'No conflict markers remain',
        ],
        files: [...conflicts],
        dependsOn: [],
      },
    },
    // Candidates edit the merge's own tree: both sides' clean changes, markers in the conflicts.
    baseCommit: conflicted,
    branch: n.branch as string,
    ...(merge.checks === undefined ? {} : { checks: merge.checks }),
    integration: {
      conflicts,
      base: merge.base === undefined ? [] : await ctx.workspace.readFiles(merge.base, conflicts),
      ours: await ctx.workspace.readFiles(merge.ours, conflicts),
      theirs: await ctx.workspace.readFiles(merge.theirs, conflicts),
      sides,
    },
  };
  const winner = await voteOnCode(ctx, n, record, merge.vote, task, conflicts, {
    parent: merge.ours,
    mergeKey: merge.key,
  });
  if (winner === 'split') throw new Error('unreachable: integrations cannot be split');
  return candidateTree(winner);
}

/** One side of a merge named for a marker and a prompt: a subtask's or a node's title. */
export function sideLabel(text: string): string {
  return markerLabel(text, 100);
}

/** The conflicted tree with its markers labelled by side (text files that hold markers only). */
async function labelMarkers(
  ctx: RunContext,
  tree: string,
  conflicts: readonly string[],
  labels: { readonly ours: string; readonly theirs: string },
): Promise<string> {
  const edits = (await ctx.workspace.readFiles(tree, conflicts)).flatMap((f) => {
    if (f.content === null || f.content.includes('\0') || f.content.includes('\uFFFD')) return [];
    const relabelled = relabelConflictMarkers(f.content, labels);
    return relabelled === f.content ? [] : [{ path: f.path, content: relabelled }];
  });
  return edits.length === 0 ? tree : ctx.workspace.treeWithEdits(tree, edits);
}

/**
 * A conflicted merge with its shared manifests (`package.json`, `pyproject.toml`, …) merged by
 * their keys from the merge base: what is left conflicting is what two sides changed differently.
 * Clean when nothing is left.
 */
export async function mergeManifests(
  ctx: Pick<RunContext, 'workspace'>,
  merged: Extract<MergeResult, { ok: false }>,
  base: string | undefined,
  ours: string,
  theirs: string,
): Promise<MergeResult> {
  const manifests = merged.conflicts.filter((p) => manifestKind(p) !== undefined);
  if (manifests.length === 0 || base === undefined) return merged;
  const ws = ctx.workspace;
  const [b, o, t] = await Promise.all([base, ours, theirs].map((c) => ws.readFiles(c, manifests)));
  const edits = manifests.flatMap((path, i) => {
    const content = mergeManifest(
      path,
      b?.[i]?.content ?? null,
      o?.[i]?.content ?? null,
      t?.[i]?.content ?? null,
    );
    return content === undefined ? [] : [{ path, content }];
  });
  if (edits.length === 0) return merged;
  const tree = await ws.treeWithEdits(merged.tree, edits);
  const conflicts = merged.conflicts.filter((p) => !edits.some((e) => e.path === p));
  return conflicts.length === 0 ? { ok: true, tree } : { ok: false, tree, conflicts };
}
