import type { RunRemote } from '../../ports/remote.js';
import { compareUrl } from '../../ports/repo-host.js';
import type { RunContext } from '../run/run-context.js';

/**
 * The candidates of a select question, pushed so a person can inspect them on GitHub: one flat
 * branch each, `maker/<run>/c-<node>-<attempt>-<n>` (git cannot hold `…/n-<node>` and
 * `…/n-<node>/cand-1` at once), with a compare link from the subtask's base.
 */
export async function publishCandidates(
  ctx: RunContext,
  remote: RunRemote,
  nodeId: string,
  tag: string,
  base: string,
  trees: readonly string[],
): Promise<string[]> {
  const branches = await Promise.all(
    trees.map(async (tree, i) => {
      const commit = await ctx.workspace.commit({
        tree,
        parents: [base],
        message: `MAKER candidate ${i + 1} for node ${nodeId}\n\nMaker-Run: ${ctx.run.id}`,
        date: new Date(ctx.run.createdAt),
      });
      const branch = candidateBranch(ctx.run.id, nodeId, tag, i);
      await remote.publisher.publish(branch, commit);
      return branch;
    }),
  );
  return branches.map((b) => compareUrl(remote.repo, base, b));
}

/** Deletes a settled question's candidate branches, unless the run keeps them. */
export async function removeCandidates(
  ctx: RunContext,
  remote: RunRemote,
  nodeId: string,
  tag: string,
  count: number,
): Promise<void> {
  if (ctx.run.github?.keepCandidates === true) return;
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      remote.publisher.remove(candidateBranch(ctx.run.id, nodeId, tag, i)),
    ),
  );
}

export function candidateBranch(runId: string, nodeId: string, tag: string, i: number): string {
  return `maker/${runId}/c-${nodeId}-${tag}-${i + 1}`;
}
