import { z } from 'zod';

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
