import type { Octokit } from 'octokit';
import type { MergeOutcome, RepoRef } from '../../ports/repo-host.js';
import { isRequestError, isUnknownOutcome, toGitHubError, validationMessages } from './errors.js';
import { mergeSchema, parse, type GitHubPull } from './schemas.js';

/** What merging a pull request needs of the host. */
export interface MergeDeps {
  readonly octokit: Octokit;
  /** The token the octokit sends, so no message can carry it. */
  readonly token: string;
  /** Attempts at a merge whose outcome stays unknown, each after a read of the pull request. */
  readonly attempts: number;
  /** Reads of the pull request while GitHub computes its mergeability. */
  readonly polls: number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly getPull: (repo: RepoRef, number: number) => Promise<GitHubPull>;
}

/**
 * Merges pull request `number` at `expectedHeadSha`, once: after a lost reply or a refusal, what
 * the pull request says now (merged, closed, moved, conflicting) decides, before any new attempt.
 */
export async function mergePull(
  deps: MergeDeps,
  repo: RepoRef,
  number: number,
  merge: { expectedHeadSha: string; title?: string; message?: string },
): Promise<MergeOutcome> {
  const action = `merge pull request #${number} in ${repo.owner}/${repo.name}`;
  for (let attempt = 1; ; attempt++) {
    const pr = await settledPull(deps, repo, number);
    const settled = settledOutcome(pr, merge.expectedHeadSha);
    if (settled !== undefined) return settled;
    if (pr.mergeable === false)
      return { status: 'not-mergeable', message: `#${number} conflicts with ${pr.base.ref}.` };
    try {
      const { data } = await deps.octokit.rest.pulls.merge({
        owner: repo.owner,
        repo: repo.name,
        pull_number: number,
        sha: merge.expectedHeadSha,
        merge_method: 'merge',
        ...(merge.title === undefined ? {} : { commit_title: merge.title }),
        ...(merge.message === undefined ? {} : { commit_message: merge.message }),
        request: { retries: 0 },
      });
      return { status: 'merged', sha: parse(mergeSchema, data, action).sha };
    } catch (error) {
      const known = isRequestError(error) && (error.status === 405 || error.status === 409);
      if (!known && !(isUnknownOutcome(error) && attempt < deps.attempts))
        throw toGitHubError(error, {
          action,
          needs: 'contents',
          repoSeen: true,
          token: deps.token,
        });
      // Merged by this very request (lost reply), or refused: what is true now decides.
      const now = await deps.getPull(repo, number);
      const outcome = settledOutcome(now, merge.expectedHeadSha);
      if (outcome !== undefined) return outcome;
      if (known && isRequestError(error))
        return error.status === 409
          ? { status: 'head-moved', headSha: now.head.sha }
          : { status: 'not-mergeable', message: validationMessages(error).join('; ') };
      await deps.sleep(500 * attempt);
    }
  }
}

/** The pull request once GitHub has computed its mergeability (or stopped trying). */
async function settledPull(deps: MergeDeps, repo: RepoRef, number: number): Promise<GitHubPull> {
  let pr = await deps.getPull(repo, number);
  for (let poll = 0; pr.state === 'open' && pr.mergeable == null && poll < deps.polls; poll++) {
    await deps.sleep(Math.min(4000, 250 * 2 ** poll));
    pr = await deps.getPull(repo, number);
  }
  return pr;
}

/** A merged or closed pull request's outcome, or undefined while it is open at the expected head. */
function settledOutcome(pr: GitHubPull, expectedHead: string): MergeOutcome | undefined {
  if (pr.merged === true || (pr.merged_at ?? null) !== null)
    return pr.head.sha === expectedHead && pr.merge_commit_sha != null
      ? { status: 'merged', sha: pr.merge_commit_sha }
      : { status: 'head-moved', headSha: pr.head.sha };
  if (pr.state === 'closed') return { status: 'closed' };
  if (pr.head.sha !== expectedHead) return { status: 'head-moved', headSha: pr.head.sha };
  return undefined;
}
