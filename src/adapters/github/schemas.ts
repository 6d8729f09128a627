import { z, type ZodType } from 'zod';
import type { PullRequestInfo, RepositoryInfo } from '../../ports/repo-host.js';
import { GitHubError } from './errors.js';

/** GitHub's answers, only the fields MAKER reads (extra fields are tolerated). */

export const userSchema = z.object({ login: z.string() });

export const repositorySchema = z.object({
  id: z.number(),
  name: z.string(),
  owner: z.object({ login: z.string() }),
  private: z.boolean(),
  default_branch: z.string(),
  html_url: z.string(),
  clone_url: z.string(),
  /** What the token's user may do there (present when authenticated). */
  permissions: z.object({ admin: z.boolean(), push: z.boolean(), pull: z.boolean() }).optional(),
});
export type GitHubRepository = z.infer<typeof repositorySchema>;

/** A pull request as listed (no `merged`) or read whole (with it). */
export const pullSchema = z.object({
  number: z.number(),
  html_url: z.string(),
  state: z.enum(['open', 'closed']),
  title: z.string(),
  body: z.string().nullable().optional(),
  head: z.object({
    ref: z.string(),
    sha: z.string(),
    repo: z.object({ full_name: z.string() }).nullable().optional(),
  }),
  base: z.object({ ref: z.string() }),
  merged_at: z.string().nullable().optional(),
  merge_commit_sha: z.string().nullable().optional(),
  merged: z.boolean().optional(),
  mergeable: z.boolean().nullable().optional(),
});
export type GitHubPull = z.infer<typeof pullSchema>;

export const commentSchema = z.object({
  id: z.number(),
  html_url: z.string(),
  body: z.string().optional(),
});

export const mergeSchema = z.object({ sha: z.string(), merged: z.boolean() });

export function repositoryInfo(repo: GitHubRepository, created: boolean): RepositoryInfo {
  return {
    owner: repo.owner.login,
    name: repo.name,
    id: repo.id,
    defaultBranch: repo.default_branch,
    private: repo.private,
    htmlUrl: repo.html_url,
    cloneUrl: repo.clone_url,
    created,
  };
}

export function pullInfo(pr: GitHubPull): PullRequestInfo {
  const merged = pr.merged === true || (pr.merged_at ?? null) !== null;
  return {
    number: pr.number,
    url: pr.html_url,
    state: merged ? 'merged' : pr.state,
    headRef: pr.head.ref,
    headSha: pr.head.sha,
    baseRef: pr.base.ref,
    title: pr.title,
    body: pr.body ?? '',
    ...(merged && pr.merge_commit_sha != null ? { mergeCommitSha: pr.merge_commit_sha } : {}),
  };
}

/** GitHub's answer checked against its schema; a mismatch is a `protocol` error naming the action. */
export function parse<T>(schema: ZodType<T>, data: unknown, action: string): T {
  const result = schema.safeParse(data);
  if (!result.success)
    throw new GitHubError(
      'protocol',
      `GitHub's answer to "${action}" was not what the API documents: ${result.error.issues[0]?.message ?? 'invalid'}.`,
    );
  return result.data;
}
