import { z } from 'zod';
import { branchTip, commitFile, listRefs, updateRef } from './fake-github-git.js';
import { fakeGitHubFaultSchema, type FakeGitHubFault } from './fake-github-faults.js';
import { syncPulls } from './fake-github-route.js';
import type { FakeGitHubWorld } from './fake-github-world.js';
import { errorReply, json, type Reply } from './github-http.js';
import { OfflineError } from './errors.js';

/** The fake's knobs and introspection, also served under `/_fake/…` for a fake in another process. */

export interface FakeGitHubState {
  readonly repos: readonly {
    readonly fullName: string;
    readonly private: boolean;
    readonly defaultBranch: string;
    readonly branches: Readonly<Record<string, string>>;
    readonly pulls: readonly {
      readonly number: number;
      readonly state: 'open' | 'closed';
      readonly merged: boolean;
      readonly head: string;
      readonly base: string;
      readonly title: string;
      readonly body: string | null;
      readonly mergeCommitSha: string | null;
    }[];
    readonly comments: readonly { readonly issue: number; readonly body: string }[];
  }[];
}

export async function introspect(world: FakeGitHubWorld): Promise<FakeGitHubState> {
  const repos = [];
  for (const repo of world.repos.values()) {
    const branches: Record<string, string> = {};
    for (const { ref, sha } of await listRefs(repo.gitDir, 'refs/heads/'))
      branches[ref.slice('refs/heads/'.length)] = sha;
    repos.push({
      fullName: `${repo.owner}/${repo.name}`,
      private: repo.private,
      defaultBranch: repo.defaultBranch,
      branches,
      pulls: world.pullsOf(repo).map((p) => ({
        number: p.number,
        state: p.state,
        merged: p.merged,
        head: p.headRef,
        base: p.baseRef,
        title: p.title,
        body: p.body,
        mergeCommitSha: p.mergeCommitSha,
      })),
      comments: world.comments
        .filter((c) => c.repo === repo)
        .map((c) => ({ issue: c.issue, body: c.body })),
    });
  }
  return { repos };
}

/**
 * Someone else's commit on `branch` (default: the default branch; created if missing): the knob for
 * "the default branch moved under the pull request" and "a branch maker owns was moved by someone else".
 */
export async function foreignCommit(
  world: FakeGitHubWorld,
  target: { owner: string; repo: string; branch?: string },
): Promise<string> {
  const repo = world.repo(target.owner, target.repo);
  if (repo === undefined)
    throw new OfflineError(`fake github: no repository ${target.owner}/${target.repo}`);
  const branch = target.branch ?? repo.defaultBranch;
  for (;;) {
    const tip = await branchTip(repo.gitDir, branch);
    const sha = await commitFile(
      repo.gitDir,
      tip,
      `foreign-${world.nextId()}.txt`,
      'written by someone else\n',
      'A commit someone else made',
    );
    if (await updateRef(repo.gitDir, `refs/heads/${branch}`, sha, tip ?? null)) {
      await syncPulls(world, repo);
      return sha;
    }
  }
}

const targetSchema = z.object({
  owner: z.string(),
  repo: z.string(),
  branch: z.string().optional(),
});

/** What the control routes drive: the knobs of a FakeGitHub (see fake-github.ts). */
export interface FakeGitHubKnobs {
  readonly requests: readonly unknown[];
  clearRequests(): void;
  addFault(fault: FakeGitHubFault): void;
  clearFaults(): void;
  revokeToken(token: string): void;
  foreignCommit(target: { owner: string; repo: string; branch?: string }): Promise<string>;
  state(): Promise<FakeGitHubState>;
}

/** `/_fake/requests` (GET, DELETE), `/_fake/faults` (POST one, DELETE all), `/_fake/revoke-token`, `/_fake/foreign-commit`, `/_fake/state`. */
export async function controlRoute(
  fake: FakeGitHubKnobs,
  method: string,
  path: string,
  text: string,
): Promise<Reply> {
  const body = (): unknown => (text === '' ? {} : JSON.parse(text));
  try {
    switch (`${method} ${path}`) {
      case 'GET /_fake/requests':
        return json(200, { requests: fake.requests });
      case 'DELETE /_fake/requests':
        fake.clearRequests();
        return { status: 204 };
      case 'POST /_fake/faults':
        fake.addFault(fakeGitHubFaultSchema.parse(body()));
        return { status: 204 };
      case 'DELETE /_fake/faults':
        fake.clearFaults();
        return { status: 204 };
      case 'POST /_fake/revoke-token':
        fake.revokeToken(z.object({ token: z.string() }).parse(body()).token);
        return { status: 204 };
      case 'POST /_fake/foreign-commit':
        return json(200, { sha: await fake.foreignCommit(targetSchema.parse(body())) });
      case 'GET /_fake/state':
        return json(200, await fake.state());
      default:
        return errorReply(404, `No control route ${method} ${path}`);
    }
  } catch (error) {
    return errorReply(400, `fake github control: ${(error as Error).message}`);
  }
}
