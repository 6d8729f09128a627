import { branchTip, isAncestor } from './fake-github-git.js';
import { errorReply, type Reply } from './github-http.js';
import type {
  FakeGitHubWorld,
  FakePermission,
  FakePull,
  FakeRepo,
  Principal,
} from './fake-github-world.js';

/** What a REST route of the fake sees of its request. */
export interface RouteContext {
  readonly world: FakeGitHubWorld;
  /** The fake's origin, e.g. `http://127.0.0.1:41234`. */
  readonly base: string;
  readonly principal: Principal | undefined;
  readonly params: readonly string[];
  readonly query: URLSearchParams;
  readonly body: Readonly<Record<string, unknown>>;
  /** The request's URL without its query, for `Link` headers. */
  readonly url: string;
}

export interface Route {
  readonly method: string;
  readonly pattern: RegExp;
  readonly handle: (ctx: RouteContext) => Promise<Reply> | Reply;
}

/** The repository named by the route's first two parameters, if `permission` allows; else GitHub's answer. */
export function repoFor(
  ctx: RouteContext,
  permission: FakePermission,
  level: 'read' | 'write',
): FakeRepo | Reply {
  const repo = ctx.world.repo(ctx.params[0] as string, ctx.params[1] as string);
  if (repo === undefined) return errorReply(404, 'Not Found');
  return ctx.world.deny(ctx.principal, repo, permission, level) ?? repo;
}

export function isReply(value: unknown): value is Reply {
  return typeof value === 'object' && value !== null && 'status' in value && !('gitDir' in value);
}

export function stringField(
  body: Readonly<Record<string, unknown>>,
  name: string,
): string | undefined {
  const value = body[name];
  return typeof value === 'string' ? value : undefined;
}

/** An open pull request's ends follow its branches; a closed one keeps what it had. */
export async function refreshPull(pr: FakePull): Promise<void> {
  if (pr.state !== 'open') return;
  pr.headSha = (await branchTip(pr.repo.gitDir, pr.headRef)) ?? pr.headSha;
  pr.baseSha = (await branchTip(pr.repo.gitDir, pr.baseRef)) ?? pr.baseSha;
}

/**
 * After refs moved (a push, the refs API, a foreign commit) by `actor` (default: the owner): as
 * GitHub does, an open pull request whose head or base branch is gone is closed (its timeline says
 * `head_ref_deleted`, then `closed`, for a deleted head), and one whose head is now in its base is
 * merged.
 */
export async function syncPulls(
  world: FakeGitHubWorld,
  repo: FakeRepo,
  actor: string = repo.owner,
): Promise<void> {
  repo.pushedAt = world.timestamp();
  for (const pr of world.pullsOf(repo)) {
    if (pr.state !== 'open') continue;
    const head = await branchTip(repo.gitDir, pr.headRef);
    const base = await branchTip(repo.gitDir, pr.baseRef);
    const now = world.timestamp();
    if (head === undefined || base === undefined) {
      pr.state = 'closed';
      pr.closedAt = pr.updatedAt = now;
      if (head === undefined) world.pullEvent(pr, 'head_ref_deleted', actor);
      world.pullEvent(pr, 'closed', actor);
    } else if (await isAncestor(repo.gitDir, head, base)) {
      Object.assign(pr, {
        state: 'closed',
        headSha: head,
        merged: true,
        mergedAt: now,
        closedAt: now,
        updatedAt: now,
        mergeCommitSha: head,
        mergedBy: actor,
      });
      world.pullEvent(pr, 'merged', actor, head);
      world.pullEvent(pr, 'closed', actor);
    }
  }
}
