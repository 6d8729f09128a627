import { reopenedResultRule, reopenEvidenceRule } from '../../core/red-flags/index.js';
import type { TreeNode, VoteRecord } from '../../core/tree/schema.js';
import { runCheck } from '../checks/checks.js';
import type { RunContext } from '../run/run-context.js';
import { restartVote } from '../../core/view/summary.js';
import type { DrawResult } from '../vote/votes.js';

/**
 * The red flags of a reopened node's new candidates: the answer that was set aside (its class, by
 * key or by key up to local names), and failing the evidence: each failure traced to the node is
 * replayed (the failing check on the failing candidates' trees, with the node's files replaced by
 * the candidate's) and must pass on at least one of them. Other candidates pass as they came.
 */
export async function screenReopened(
  ctx: RunContext,
  n: TreeNode,
  base: string,
  result: DrawResult,
): Promise<DrawResult> {
  const reopen = n.reopen;
  if (!result.ok || reopen === undefined || result.tree === undefined) return result;
  const kept = result.externalId === undefined ? {} : { externalId: result.externalId };
  const why = reopen.reasons.at(-1) ?? 'a later failure';
  if (
    reopen.excluded.includes(result.key) ||
    (result.alias !== undefined && reopen.excluded.includes(result.alias))
  )
    return { ok: false, flags: reopenedResultRule.check({ why, excluded: true }), ...kept };
  if (reopen.evidence.length === 0) return result;
  const tree = result.tree;
  const paths = (await ctx.workspace.changes(base, tree)).map((c) => c.path);
  const edits = await ctx.workspace.readFiles(tree, paths);
  for (const evidence of reopen.evidence) {
    let last = '';
    let passed = false;
    for (const failed of evidence.trees) {
      const replayed = await ctx.workspace.treeWithEdits(failed, edits);
      const check = await ctx.paid(() => runCheck(ctx, replayed, evidence.command), {
        ahead: true,
      });
      last = check.output;
      if (check.ok) {
        passed = true;
        break;
      }
    }
    if (!passed)
      return {
        ok: false,
        flags: reopenEvidenceRule.check({
          why,
          stillFails: { command: evidence.command, output: last },
        }),
        ...kept,
      };
  }
  return result;
}

/**
 * When every candidate of a reopened node failed the replayed evidence (most of its flags say so),
 * the evidence is what is wrong (the failing candidates were wrong themselves): it is dropped and
 * the node voted again, the set-aside answer still excluded. True when it did so.
 */
export async function dropBadEvidence(
  ctx: RunContext,
  n: TreeNode,
  record: VoteRecord,
): Promise<boolean> {
  const reopen = n.reopen;
  if (reopen === undefined || reopen.evidence.length === 0) return false;
  const flagged = record.draws.filter((d) => d.status === 'flagged');
  const replayed = flagged.filter((d) => d.flags.some((f) => f.rule === 'reopen-evidence'));
  if (replayed.length === 0 || replayed.length * 2 < flagged.length) return false;
  reopen.evidence = [];
  restartVote(record);
  await ctx.save(n);
  return true;
}
