import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import type { FakeComment, FakePull, FakeRepo, FakeGitHubWorld } from './fake-github-world.js';
import { OfflineError } from './errors.js';

const repoSchema = z.object({
  id: z.number().int(),
  owner: z.string(),
  ownerType: z.enum(['User', 'Organization']),
  name: z.string(),
  private: z.boolean(),
  description: z.string().nullable(),
  defaultBranch: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  pushedAt: z.string().nullable(),
});

const pullSchema = z.object({
  id: z.number().int(),
  number: z.number().int(),
  repo: z.string(),
  user: z.string(),
  title: z.string(),
  body: z.string().nullable(),
  state: z.enum(['open', 'closed']),
  headRef: z.string(),
  baseRef: z.string(),
  headSha: z.string(),
  baseSha: z.string(),
  draft: z.boolean(),
  merged: z.boolean(),
  mergedAt: z.string().nullable(),
  mergedBy: z.string().nullable(),
  mergeCommitSha: z.string().nullable(),
  closedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  events: z
    .array(
      z.object({
        id: z.number().int(),
        event: z.enum(['closed', 'reopened', 'merged', 'head_ref_deleted']),
        actor: z.string(),
        createdAt: z.string(),
        commitId: z.string().nullable(),
      }),
    )
    .default([]),
});

const commentSchema = z.object({
  id: z.number().int(),
  repo: z.string(),
  issue: z.number().int(),
  user: z.string(),
  body: z.string(),
  createdAt: z.string(),
});

/**
 * What the fake GitHub keeps of its world across restarts: users and their ids, the id counter,
 * repositories, pull requests and comments. Never a token: a restarted fake is given fresh ones.
 * The bare repositories live next to it, under the same root.
 */
export const storedWorldSchema = z.object({
  version: z.literal(1),
  nextId: z.number().int(),
  users: z.array(z.tuple([z.string(), z.number().int()])),
  repos: z.array(repoSchema),
  pulls: z.array(pullSchema),
  comments: z.array(commentSchema),
});
export type StoredWorld = z.infer<typeof storedWorldSchema>;

const keyOf = (repo: FakeRepo) => `${repo.owner}/${repo.name}`.toLowerCase();

/** The world as stored (see {@link storedWorldSchema}). */
export function snapshotWorld(world: FakeGitHubWorld): StoredWorld {
  const repo = ({ gitDir: _gitDir, ...rest }: FakeRepo) => rest;
  const pull = ({ repo: r, mergeable: _mergeable, ...rest }: FakePull) => ({
    ...rest,
    repo: keyOf(r),
  });
  const comment = ({ repo: r, ...rest }: FakeComment) => ({ ...rest, repo: keyOf(r) });
  return {
    version: 1,
    ...world.counters(),
    repos: [...world.repos.values()].map(repo),
    pulls: world.pulls.map(pull),
    comments: world.comments.map(comment),
  };
}

/** Puts a stored world's repositories, pull requests and comments back into an empty `world`. */
export function restoreWorld(world: FakeGitHubWorld, stored: StoredWorld): void {
  for (const r of stored.repos)
    world.repos.set(`${r.owner}/${r.name}`.toLowerCase(), {
      ...r,
      gitDir: world.gitDir(r.owner, r.name),
    });
  const repoOf = (key: string) => {
    const repo = world.repos.get(key);
    if (repo === undefined) throw new OfflineError(`fake github store: no repository ${key}`);
    return repo;
  };
  for (const p of stored.pulls)
    world.pulls.push({ ...p, repo: repoOf(p.repo), mergeable: undefined });
  for (const c of stored.comments) world.comments.push({ ...c, repo: repoOf(c.repo) });
}

/**
 * The fake GitHub's world on disk (a JSON file), so a fake restarted after its process was killed
 * still has every repository, pull request and comment, as GitHub outlives its clients. Written
 * whole and renamed over: a kill leaves the old or the new world, never a torn one.
 */
export function fakeGitHubStore(path: string) {
  return {
    path,
    exists: () => existsSync(path),
    load(): StoredWorld | undefined {
      if (!existsSync(path)) return undefined;
      let json: unknown;
      try {
        json = JSON.parse(readFileSync(path, 'utf8'));
      } catch (error) {
        throw new OfflineError(`fake github store ${path} is not JSON: remove it to start empty`, {
          cause: error,
        });
      }
      const parsed = storedWorldSchema.safeParse(json);
      if (!parsed.success)
        throw new OfflineError(
          `fake github store ${path} is not a stored world: ${parsed.error.message}`,
        );
      return parsed.data;
    },
    save(world: StoredWorld): void {
      mkdirSync(dirname(path), { recursive: true });
      const temp = `${path}.${process.pid}.tmp`;
      writeFileSync(temp, `${JSON.stringify(world)}\n`);
      renameSync(temp, path);
    },
  };
}
