import type { Octokit } from 'octokit';
import { z } from 'zod';
import type { RepoRef } from '../../ports/repo-host.js';
import { GitHubError, type GitHubPermission } from './errors.js';
import { parse } from './schemas.js';

/*
 * A pull request's head branch deleted on GitHub (which closes the pull request): telling that from
 * a person closing it, and restoring the branch, as GitHub's "Restore branch" does.
 */

/** A timeline item: only its kind is read (every other field, and every other kind, tolerated). */
export const timelineEventSchema = z.object({ event: z.string().nullish() });

/** The timeline events that change, or say why, a pull request's state. */
const STATE_EVENTS = new Set([
  'closed',
  'reopened',
  'merged',
  'head_ref_deleted',
  'head_ref_restored',
]);

/**
 * Why a closed, unmerged pull request was closed, from its timeline (oldest first): `head-deleted`
 * when its last `closed` came right after `head_ref_deleted` (GitHub closes a pull request whose
 * head branch is deleted: nobody closed it as such), else `someone` (a person, or an app, closed
 * it; a branch deleted after that says nothing more).
 */
export function whyClosed(
  timeline: readonly z.infer<typeof timelineEventSchema>[],
): 'head-deleted' | 'someone' {
  const states = timeline.map((e) => e.event ?? '').filter((e) => STATE_EVENTS.has(e));
  const last = states.lastIndexOf('closed');
  return last > 0 && states[last - 1] === 'head_ref_deleted' ? 'head-deleted' : 'someone';
}

/** {@link whyClosed} for pull request `number`, its timeline read page by page (through `call`). */
export async function readWhyClosed(
  octokit: Octokit,
  repo: RepoRef,
  number: number,
  call: Call,
): Promise<'head-deleted' | 'someone'> {
  const action = `read the timeline of pull request #${number} in ${repo.owner}/${repo.name}`;
  const events = await call({ action, needs: 'pull_requests', repoSeen: true }, () =>
    octokit.paginate(octokit.rest.issues.listEventsForTimeline, {
      owner: repo.owner,
      repo: repo.name,
      issue_number: number,
      per_page: 100,
    }),
  );
  return whyClosed(events.map((e) => parse(timelineEventSchema, e, action)));
}

/** How a host call is made: its failure turned into a {@link GitHubError} naming `action`. */
type Call = <T>(
  ctx: { action: string; needs?: GitHubPermission; repoSeen?: boolean },
  fn: () => Promise<T>,
) => Promise<T>;

/**
 * Makes `branch` exist at `sha` again, by the refs API (GitHub keeps a deleted branch's commits, as
 * its "Restore branch" button relies on). A branch that exists already is left as it is (the
 * caller's lease, or the merge at an expected head, tells whether it is right); a commit GitHub no
 * longer has is said plainly.
 */
export async function restoreBranch(
  octokit: Octokit,
  repo: RepoRef,
  branch: string,
  sha: string,
  call: Call,
): Promise<void> {
  const action = `restore branch ${branch} in ${repo.owner}/${repo.name}`;
  try {
    await call({ action, needs: 'contents', repoSeen: true }, () =>
      octokit.rest.git.createRef({
        owner: repo.owner,
        repo: repo.name,
        ref: `refs/heads/${branch}`,
        sha,
      }),
    );
  } catch (error) {
    if (!(error instanceof GitHubError && error.kind === 'validation')) throw error;
    if (/already exists/i.test(error.message)) return;
    if (/object does not exist/i.test(error.message))
      throw new GitHubError(
        'validation',
        `GitHub no longer has commit ${sha.slice(0, 12)} to restore branch ${branch} in ${repo.owner}/${repo.name}: push the branch there yourself (git push origin ${branch}), then run maker resume.`,
        { status: 422 },
      );
    throw error;
  }
}
