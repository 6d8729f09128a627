import { MakerError, RefMovedError } from '../../core/errors.js';
import { pullRequestBody, pullRequestTitle } from '../../core/github/pull-request.js';
import type { GitHubRun, Run, TreeNode } from '../../core/tree/schema.js';
import { commitMessage } from '../../core/commit-message.js';
import { isSimulatedRun } from '../../core/tree/simulated.js';
import { integrate, mergeManifests, sideLabel } from '../compose/integrate.js';
import { moveBranch } from '../leaf/leaf.js';
import type { RunRemote } from '../../ports/remote.js';
import { branchName, runDate } from '../run/naming.js';
import { intentLine } from '../context/node-context.js';
import { outward } from '../run/redaction.js';
import { RunStoppedError } from '../run/engine-errors.js';
import type { RunContext } from '../run/run-context.js';

/** The run's GitHub record; only called for runs that have one. */
export function githubOf(run: Run): GitHubRun {
  if (run.github === undefined)
    throw new MakerError('github-missing', `Run ${run.id} has no GitHub repository.`);
  return run.github;
}

/**
 * Publishes every branch the run's nodes own at its local commit, and waits until they are all on
 * the remote. A branch someone else moved is never overwritten: a person is asked to put it back
 * (or delete it) and retry, or to stop the run.
 */
export async function publishAll(ctx: RunContext, remote: RunRemote): Promise<void> {
  for (;;) {
    const branches: { nodeId: string; branch: string; sha: string }[] = [];
    for (const n of Object.values(ctx.run.nodes)) {
      if (n.branch === undefined) continue;
      const sha = await ctx.workspace.resolve(n.branch);
      if (sha !== undefined) branches.push({ nodeId: n.id, branch: n.branch, sha });
    }
    const settled = await Promise.allSettled(
      branches.map((b) => remote.publisher.publish(b.branch, b.sha)),
    );
    const moved = settled.flatMap((s, i) =>
      s.status === 'rejected' && s.reason instanceof RefMovedError
        ? [{ ...(branches[i] as (typeof branches)[number]), error: s.reason }]
        : [],
    );
    const other = settled.find(
      (s) => s.status === 'rejected' && !(s.reason instanceof RefMovedError),
    );
    if (other !== undefined && other.status === 'rejected') throw other.reason;
    const first = moved[0];
    if (first === undefined) return;
    // One question per retry: a "stop" stays the answer until the branch is put right.
    const retries = ctx.run.questions.filter(
      (q) => q.id.startsWith(`q-pushed-${first.nodeId}-`) && q.answer?.optionId === 'retry',
    );
    const answer = await ctx.ask(
      {
        id: `q-pushed-${first.nodeId}-${retries.length}`,
        nodeId: first.nodeId,
        kind: 'veto',
        prompt: `Someone else changed branch ${first.branch} on GitHub (${first.error.message}) MAKER never force-pushes: put the branch back at ${first.sha.slice(0, 12)} or delete it on GitHub, then retry; or stop the run (maker resume retries later).${
          moved.length > 1
            ? ` ${moved.length - 1} other branch(es) are in the same state: ${moved
                .slice(1, 6)
                .map((m) => m.branch)
                .join(', ')}.`
            : ''
        }`,
        options: [
          { id: 'retry', label: 'Retry: I restored or deleted the branch on GitHub' },
          { id: 'stop', label: 'Stop the run' },
        ],
      },
      { optionId: 'stop' },
    );
    if (answer.optionId !== 'retry')
      throw new RunStoppedError(
        `Branch ${first.branch} on GitHub was changed by someone else, and MAKER never force-pushes. Restore it (or delete it) on GitHub, then run maker resume.`,
      );
  }
}

/**
 * The pull request from the root branch into the default branch, opened once (a lookup comes
 * before every create) with its number saved right away, or brought up to date.
 */
export async function ensurePullRequest(
  ctx: RunContext,
  remote: RunRemote,
): Promise<NonNullable<GitHubRun['pullRequest']>> {
  const gh = githubOf(ctx.run);
  const title = outward(ctx, pullRequestTitle(ctx.run));
  const body = outward(
    ctx,
    pullRequestBody(ctx.run, (id) => ctx.worker.sessionUrl?.(id)),
  );
  if (gh.pullRequest === undefined) {
    const rootBranch = branchName(ctx.run.id, ctx.run.rootId);
    const pr = await remote.host.openPullRequest(remote.repo, {
      head: rootBranch,
      base: gh.defaultBranch,
      title,
      body,
    });
    await ctx.checkpoint?.('github:pr-created');
    gh.pullRequest = { number: pr.number, url: pr.url, state: pr.state };
    await ctx.save();
    ctx.emit({ type: 'pull-request', number: pr.number, url: pr.url, state: pr.state });
    await ctx.checkpoint?.('github:pr-saved');
    if (pr.title === title && pr.body === body) return gh.pullRequest;
  }
  if (gh.pullRequest.state !== 'merged') {
    const { number } = gh.pullRequest;
    const update = () => remote.host.updatePullRequest(remote.repo, number, { title, body });
    let now =
      gh.pullRequest.state === 'open'
        ? await update()
        : await remote.host.getPullRequest(remote.repo, number);
    if (now.state === 'closed' && (await reopenIfHeadDeleted(ctx, remote))) now = await update();
    gh.pullRequest = { ...gh.pullRequest, state: now.state };
    await ctx.save();
  }
  return gh.pullRequest;
}

/**
 * A pull request GitHub closed because its head branch (the root's) was deleted is not a veto: the
 * branch is restored where MAKER last pushed it (GitHub keeps that commit; its lease stays true),
 * moved on to the local head if that is further, and the pull request reopened, saying so (true).
 * One a person closed stays closed (false): it is theirs to reopen.
 */
async function reopenIfHeadDeleted(ctx: RunContext, remote: RunRemote): Promise<boolean> {
  const gh = githubOf(ctx.run);
  const pr = gh.pullRequest;
  if (pr === undefined || (await remote.host.whyClosed(remote.repo, pr.number)) !== 'head-deleted')
    return false;
  const branch = branchName(ctx.run.id, ctx.run.rootId);
  // Back where MAKER last published it (GitHub keeps that commit), then on to the local head.
  const leased = remote.publisher.leases()[branch];
  const head = await ctx.workspace.resolve(branch);
  if (leased === undefined || head === undefined) return false;
  await remote.host.restoreBranch(remote.repo, branch, leased);
  if (head !== leased) await remote.publisher.publish(branch, head);
  const now = await remote.host.updatePullRequest(remote.repo, pr.number, { state: 'open' });
  gh.pullRequest = { ...pr, state: now.state };
  await ctx.save();
  ctx.emit({
    type: 'pull-request',
    number: pr.number,
    url: pr.url,
    state: now.state,
    note: `reopened: GitHub closed it when its head branch ${branch} was deleted (no one closed it); MAKER pushed the branch back`,
  });
  return now.state === 'open';
}

/** Vetoed: the pull request gets one comment saying so, and is closed. The branches stay. */
export async function closeVetoed(ctx: RunContext, remote: RunRemote): Promise<void> {
  const gh = githubOf(ctx.run);
  const pr = gh.pullRequest;
  if (pr === undefined || pr.state !== 'open') return;
  await remote.host.addComment(remote.repo, pr.number, {
    key: `veto-${ctx.run.id}`,
    body: `Vetoed: MAKER run \`${ctx.run.id}\` leaves ${gh.defaultBranch} untouched. Its branches (maker/${ctx.run.id}/…) are kept.`,
  });
  await ctx.checkpoint?.('github:veto-commented');
  const closed = await remote.host.updatePullRequest(remote.repo, pr.number, { state: 'closed' });
  gh.pullRequest = { ...pr, state: closed.state };
  await ctx.save();
}

/**
 * Accepted: the pull request is merged through the host (a merge commit, only at the head MAKER
 * composed), then the local default branch moves to that merge commit. Restartable at every step:
 * the intent is saved first, then the merge commit, and each later step is repeatable.
 */
export async function landThroughPullRequest(
  ctx: RunContext,
  remote: RunRemote,
  rootCommit: string,
): Promise<string> {
  const { run, workspace } = ctx;
  const gh = githubOf(run);
  const pr = gh.pullRequest;
  if (pr === undefined)
    throw new MakerError('github-no-pr', `Run ${run.id} has no pull request to merge.`);
  const target = run.config.defaultBranch;
  if (run.landing === undefined || run.landing.pullRequest !== pr.number) {
    const from = await workspace.resolve(target);
    if (from === undefined)
      throw new MakerError('git-land', `The repository has no branch "${target}".`);
    run.landing = {
      target,
      from,
      to: rootCommit,
      startedAt: ctx.now().toISOString(),
      pullRequest: pr.number,
    };
    await ctx.save();
    await ctx.checkpoint?.('github:merge-intent-saved');
  }
  const landing = run.landing;
  if (landing.mergeCommit === undefined) {
    const merge = () =>
      remote.host.mergePullRequest(remote.repo, pr.number, {
        expectedHeadSha: rootCommit,
        title: outward(
          ctx,
          `${isSimulatedRun(run.config) ? '[simulated] ' : ''}MAKER: ${run.idea.replace(/\s+/g, ' ').slice(0, 120)}`,
        ),
        message: `Maker-Run: ${run.id}`,
      });
    let outcome = await merge();
    // Closed by its head branch's deletion (not by a person): reopened, then merged (twice at most).
    for (let reopened = 0; outcome.status === 'closed' && reopened < 2; reopened++) {
      if (!(await reopenIfHeadDeleted(ctx, remote))) break;
      outcome = await merge();
    }
    switch (outcome.status) {
      case 'merged':
        break;
      case 'head-moved':
        throw new RunStoppedError(
          `Pull request ${pr.url} no longer ends at the result MAKER composed (its head is now ${outcome.headSha.slice(0, 12)}, not ${rootCommit.slice(0, 12)}): someone pushed to ${branchName(run.id, run.rootId)}. Nothing was merged. Reset that branch to ${rootCommit.slice(0, 12)} on GitHub, then run maker resume.`,
        );
      case 'closed':
        throw new RunStoppedError(
          `Pull request ${pr.url} was closed by someone else: nothing was merged. Reopen it, then run maker resume.`,
        );
      case 'not-mergeable':
        throw new BaseMovedError(outcome.message, pr.url);
    }
    landing.mergeCommit = outcome.sha;
    gh.pullRequest = { ...pr, state: 'merged' };
    await ctx.save();
    ctx.emit({ type: 'pull-request', number: pr.number, url: pr.url, state: 'merged' });
    await ctx.checkpoint?.('github:merged');
  }
  const merged = landing.mergeCommit;
  await remote.fetchCommit(gh.defaultBranch, merged);
  await ctx.checkpoint?.('github:fetched');
  // The local branch fast-forwards to the merge when it is behind it; commits of the person's own
  // there are kept by a local merge. Planned again on resume: the same plan (a fixed date).
  const local = await ctx.landing.planLanding(
    target,
    merged,
    merged,
    commitMessage(run.config, {
      subject: `Merge pull request #${pr.number} from GitHub into the local ${target}`,
      trailers: [`Maker-Run: ${run.id}`],
    }),
    runDate(run),
  );
  await ctx.landing.completeLanding(target, local.from, local.to);
  // `git status` then says the local branch is even with (or ahead of) GitHub's, as it is.
  await remote.trackRemoteHead?.(gh.defaultBranch, merged).catch(() => undefined);
  return merged;
}

/** The default branch moved under the pull request so that it no longer merges. */
export class BaseMovedError extends MakerError {
  override readonly name = 'BaseMovedError';
  constructor(
    /** What GitHub said. */
    readonly detail: string,
    readonly url: string,
  ) {
    super('github-base-moved', `The default branch moved under the pull request: ${detail}`);
  }
}

/**
 * The default branch moved under the pull request so that it no longer merges: its new head is
 * fetched and merged into the result (a conflict becomes a voted integration, as between
 * children), the root branch moves to the merge and is pushed. Returns the new root commit; the
 * caller asks the veto again. Repeatable: the integration's vote is kept under the base's commit.
 */
export async function mergeMovedBase(
  ctx: RunContext,
  remote: RunRemote,
  refused: BaseMovedError,
): Promise<string> {
  const { run } = ctx;
  const gh = githubOf(run);
  const root = run.nodes[run.rootId];
  const ours = root?.commit;
  if (root === undefined || ours === undefined)
    throw new MakerError('run-incomplete', 'The root finished without a commit.');
  const theirs = await remote.fetchBranch(gh.defaultBranch);
  if (theirs === undefined)
    throw new RunStoppedError(
      `The default branch ${gh.defaultBranch} is gone from ${gh.url}: restore it, then run maker resume.`,
    );
  const key = `base-${theirs.slice(0, 12)}`;
  const lines = await ctx.workspace.merge(ours, theirs);
  const merged = lines.ok ? lines : await mergeManifests(ctx, lines, root.baseCommit, ours, theirs);
  // Nothing to merge in: the refusal is not a moved base, and a merge commit would not change it.
  if (merged.ok && merged.tree === (await ctx.workspace.treeOf(ours)))
    throw new RunStoppedError(
      `GitHub refused to merge pull request ${refused.url} (${refused.detail || 'not mergeable'}), though ${gh.defaultBranch} holds nothing the result lacks: a branch protection rule or a repository setting blocks it (required reviews or checks, merge commits not allowed). Nothing was merged. Resolve it on GitHub, then run maker resume.`,
    );
  const tree = merged.ok
    ? merged.tree
    : await integrateMovedBase(ctx, root, { key, ours, theirs }, merged);
  const how = merged.ok
    ? ''
    : `\n\nConflicts in ${merged.conflicts.join(', ')} resolved by a voted integration.`;
  const commit = await ctx.workspace.commit({
    tree,
    parents: [ours, theirs],
    message: outward(
      ctx,
      commitMessage(run.config, {
        subject: `Merge ${gh.defaultBranch}, which moved under the pull request`,
        body: how,
        trailers: [`Maker-Run: ${run.id}`, `Maker-Node: ${root.id}`],
      }),
    ),
    date: runDate(run),
  });
  await moveBranch(ctx, root.branch as string, commit, ours);
  await ctx.checkpoint?.('github:base-merged');
  root.commit = commit;
  await ctx.save();
  await remote.publisher.publish(root.branch as string, commit);
  return commit;
}

/**
 * The tree of the root's result merged with the moved default branch (`theirs`) where the lines
 * conflicted: a voted integration, as between children, kept under `key` (the base's commit).
 */
async function integrateMovedBase(
  ctx: RunContext,
  root: TreeNode,
  merge: { readonly key: string; readonly ours: string; readonly theirs: string },
  merged: { readonly tree: string; readonly conflicts: readonly string[] },
): Promise<string> {
  const { run } = ctx;
  const gh = githubOf(run);
  const { key, ours, theirs } = merge;
  ctx.emit({
    type: 'merge-conflict',
    nodeId: root.id,
    child: gh.defaultBranch,
    conflicts: merged.conflicts,
  });
  return integrate(ctx, root, {
    key,
    what: `the moved ${gh.defaultBranch}`,
    vote: `integrate-${key}`,
    ours,
    theirs,
    // The root started from the default branch's head of then, which its new head builds on.
    base: root.baseCommit,
    conflicted: merged.tree,
    conflicts: merged.conflicts,
    sides: {
      ours: {
        label: sideLabel(`"${root.title}" (this run's result)`),
        intent:
          root.children.length === 0
            ? [intentLine(root)]
            : root.children.flatMap((id) => {
                const child = run.nodes[id];
                return child === undefined ? [] : [intentLine(child)];
              }),
      },
      theirs: {
        label: sideLabel(`${gh.defaultBranch} as it is now on GitHub`),
        intent: [
          `Commits someone else pushed to ${gh.defaultBranch} while this run worked: keep what they do.`,
        ],
      },
    },
  });
}
