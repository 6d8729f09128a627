import { MakerError } from '../../core/errors.js';
import { fileStats, statSummary, type FileStat } from '../../core/diffstat.js';
import type { TreeNode } from '../../core/tree/schema.js';
import { commitMessage } from '../../core/commit-message.js';
import { acceptable, checkSummary, finalChecks } from '../checks/checks.js';
import { runCheckCounts } from '../../core/checks.js';
import {
  BaseMovedError,
  closeVetoed,
  ensurePullRequest,
  landThroughPullRequest,
  mergeMovedBase,
  publishAll,
} from './github.js';
import { moveBranch } from '../leaf/leaf.js';
import { compositionFailure, traceComposition, untraced } from '../compose/trace.js';
import { branchName, runDate } from '../run/naming.js';
import { ChecksFailedError, RunStoppedError } from '../run/engine-errors.js';
import { outward } from '../run/redaction.js';
import type { RunContext } from '../run/run-context.js';
import type { Answer } from '../hitl/questions.js';

/**
 * The final veto, then landing the root's branch on the default branch. With GitHub, every branch
 * is published first and the question carries the pull request's URL; accepting merges the pull
 * request, vetoing closes it with a comment.
 */
export async function finish(ctx: RunContext, beforeVeto?: () => Promise<void>): Promise<void> {
  const { run, workspace, remote } = ctx;
  const root = run.nodes[run.rootId];
  if (root?.commit === undefined)
    throw new MakerError('run-incomplete', 'The root finished without a commit.');
  const composed = root.commit;
  // A merge of a moved default branch that a crash cut short may have moved the root's branch past
  // the saved result: the state decides (the merge is made again, the same, if it is still needed).
  const at = await workspace.resolve(root.branch as string);
  if (at !== composed) await moveBranch(ctx, root.branch as string, composed, at ?? composed);
  if (remote !== undefined) {
    await publishAll(ctx, remote);
    await beforeVeto?.();
  }
  for (;;) {
    const rootCommit = root.commit;
    const { files, tree: treeHash, checks } = await checkedResult(ctx, root, rootCommit);
    const rootBranch = branchName(run.id, run.rootId);
    const veto = { rootCommit, composed, files, checks, rootBranch };
    const answer = await askVeto(ctx, root, veto);
    if (answer.optionId !== 'accept') {
      if (remote !== undefined) await closeVetoed(ctx, remote);
      run.status = 'vetoed';
      run.result = { rootBranch, finalCommit: rootCommit, treeHash, landed: false };
      return;
    }
    let landed: string;
    try {
      landed =
        remote === undefined
          ? await landLocally(ctx, rootCommit)
          : await landThroughPullRequest(ctx, remote, rootCommit);
    } catch (error) {
      if (!(error instanceof BaseMovedError) || remote === undefined) throw error;
      run.landing = undefined;
      await mergeMovedBase(ctx, remote, error);
      continue;
    }
    run.status = 'done';
    run.result = { rootBranch, finalCommit: landed, treeHash, landed: true };
    run.landing = undefined;
    return;
  }
}

/**
 * Runs the final checks on the root's result at `rootCommit`, and throws the reopening of a
 * subtask a failing check traces to; else resolves with the files changed, the result's tree and
 * the line that sums the checks up (with why a failure was not traced, if so).
 */
async function checkedResult(
  ctx: RunContext,
  root: TreeNode,
  rootCommit: string,
): Promise<{ files: FileStat[]; tree: string; checks: string }> {
  const { run, workspace } = ctx;
  // Counts, not the patch: a large run's whole result is tens of megabytes of patch text.
  const files =
    (await workspace.fileStats?.(run.baseCommit, rootCommit)) ??
    fileStats(await workspace.diff(run.baseCommit, rootCommit));
  await finalChecks(ctx, root, rootCommit);
  // A failing check on the result is first traced to a finished subtask, reopened if found.
  const tree = await workspace.treeOf(rootCommit);
  const failing = root.checks?.tree === tree ? root.checks.results.filter((r) => !r.ok) : [];
  const failed = {
    kind: 'parent-check',
    key: 'check',
    failing,
    tree,
    children: root.children.length,
  } as const;
  const reopen = await traceComposition(ctx, root, failed);
  if (reopen !== undefined) throw reopen;
  // Why the failure was not traced to a subtask (reopened before in vain, or the bounds), if so.
  const traced = compositionFailure(ctx, root, failed);
  const bound = traced === undefined ? undefined : untraced(ctx, traced);
  return { files, tree, checks: `${checkSummary(run)}${bound === undefined ? '' : ` ${bound}`}` };
}

/**
 * Asks the final veto on the result at `rootCommit` (a new question when it is not the composed
 * result: the default branch moved and was merged in). `--hitl auto` accepts only a result whose
 * checks passed; otherwise a run that cannot ask stops with {@link ChecksFailedError}.
 */
async function askVeto(
  ctx: RunContext,
  root: TreeNode,
  veto: {
    readonly rootCommit: string;
    readonly composed: string;
    readonly files: readonly FileStat[];
    readonly checks: string;
    readonly rootBranch: string;
  },
): Promise<Answer> {
  const { run, remote } = ctx;
  const { rootCommit, files, checks, rootBranch } = veto;
  // --hitl auto lands only a result whose checks passed (or that the person chose not to check).
  const passing = acceptable(run);
  let where = `on branch ${rootBranch}`;
  if (remote !== undefined) {
    const pr = await ensurePullRequest(ctx, remote);
    where = `in pull request ${pr.url} (branch ${rootBranch})`;
  }
  const target = run.config.defaultBranch;
  // Asked again (a new id) when the result changed: the default branch moved and was merged in.
  const moved = rootCommit !== veto.composed;
  return ctx
    .ask(
      {
        id: moved ? `q-root-veto-${rootCommit.slice(0, 12)}` : 'q-root-veto',
        nodeId: run.rootId,
        kind: 'veto',
        prompt: `${moved ? `${target} moved on GitHub under the pull request; MAKER merged it into the result${Object.keys(root.integrations).some((k) => k.startsWith('base-')) ? ' (conflicts resolved by a voted integration)' : ''}. ` : ''}MAKER finished "${run.idea}" ${where} (${files.length} file${files.length === 1 ? '' : 's'} changed). ${checks} Land it on ${target}?`,
        options: [
          {
            id: 'accept',
            label: `Accept: merge into ${target}${remote === undefined ? '' : ' (the pull request is merged on GitHub)'}`,
          },
          {
            id: 'veto',
            label: `Veto: leave ${target} untouched${remote === undefined ? '' : ' (the pull request is closed; branches kept)'}`,
          },
        ],
        context: statSummary(files),
      },
      passing ? { optionId: 'accept' } : undefined,
    )
    .catch((error: unknown) => {
      if (passing || !(error instanceof RunStoppedError)) throw error;
      throw new ChecksFailedError(
        `${runCheckCounts(run).failed > 0 ? "The result's checks did not pass" : 'The result is unverified'}, and --hitl ${run.config.hitl} cannot ask a person whether to land it: nothing landed. ${checks} (Question ${error.message.match(/\(question ([^)]+)\)/)?.[1] ?? 'q-root-veto'} asks whether to land it anyway.)`,
      );
    });
}

/**
 * Lands the root's commit on the default branch, restartably: the intent (from which head to which
 * commit) is saved before anything touches the branch or the working tree, so a resume finishes a
 * landing a crash interrupted. A default branch that moved meanwhile gets a fresh plan (a merge).
 */
async function landLocally(ctx: RunContext, rootCommit: string): Promise<string> {
  const { run } = ctx;
  const target = run.config.defaultBranch;
  for (let attempt = 0; ; attempt++) {
    if (run.landing === undefined || run.landing.target !== target) {
      const [first, ...rest] = run.idea.trim().split('\n');
      const message = outward(
        ctx,
        commitMessage(run.config, {
          subject: `MAKER: ${first ?? ''}`,
          body: rest.join('\n'),
          trailers: [`Maker-Run: ${run.id}`],
        }),
      );
      const plan = await ctx.landing.planLanding(
        target,
        rootCommit,
        run.baseCommit,
        message,
        runDate(run),
      );
      run.landing = { target, ...plan, startedAt: ctx.now().toISOString() };
      await ctx.save();
      await ctx.checkpoint?.('land:intent-saved');
    }
    try {
      await ctx.landing.completeLanding(target, run.landing.from, run.landing.to);
      return run.landing.to;
    } catch (error) {
      if (!(error instanceof MakerError && error.code === 'git-land-moved') || attempt >= 3)
        throw error;
      run.landing = undefined; // the branch moved on: plan again from where it is now
    }
  }
}
