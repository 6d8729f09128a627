import { join } from 'node:path';
import { errorReply, type Reply } from './github-http.js';

/** The fake GitHub's state: users, organisations, tokens, repositories, pull requests, comments. */

export type FakePermission = 'contents' | 'pull_requests' | 'administration' | 'issues';
export type FakeAccess = 'none' | 'read' | 'write';

export interface FakeGitHubToken {
  readonly token: string;
  /** The user the token acts as. */
  readonly login: string;
  /**
   * `fine-grained` (default): a missing permission answers 403 "Resource not accessible by personal
   * access token" with `x-accepted-github-permissions`; `classic`: 404, as GitHub hides what a
   * classic token may not touch.
   */
  readonly kind?: 'fine-grained' | 'classic';
  /** Repository permissions (default: write for all). */
  readonly permissions?: Partial<Record<FakePermission, FakeAccess>>;
}

export interface Principal {
  readonly login: string;
  readonly kind: 'fine-grained' | 'classic';
  readonly permissions: Readonly<Record<FakePermission, FakeAccess>>;
}

export interface FakeRepo {
  readonly id: number;
  readonly owner: string;
  readonly ownerType: 'User' | 'Organization';
  readonly name: string;
  readonly private: boolean;
  readonly description: string | null;
  defaultBranch: string;
  readonly gitDir: string;
  readonly createdAt: string;
  updatedAt: string;
  pushedAt: string | null;
}

export interface FakePull {
  readonly id: number;
  readonly number: number;
  readonly repo: FakeRepo;
  readonly user: string;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  readonly headRef: string;
  baseRef: string;
  /** Frozen when the pull request closes; an open one follows its branches. */
  headSha: string;
  baseSha: string;
  readonly draft: boolean;
  merged: boolean;
  mergedAt: string | null;
  mergedBy: string | null;
  mergeCommitSha: string | null;
  closedAt: string | null;
  readonly createdAt: string;
  updatedAt: string;
  /** Mergeability is computed on the first read after (head, base) changes: null until then. */
  mergeable: { readonly key: string; readonly value: boolean } | undefined;
  /** Its timeline's state events, oldest first (see {@link FakePullEvent}). */
  readonly events: FakePullEvent[];
}

/**
 * A pull request's state event, as its timeline (`GET …/issues/{n}/timeline`) lists it: `closed`,
 * `reopened`, `merged`, and `head_ref_deleted` (its head branch deleted, which closes it: GitHub
 * lists that `closed` right after). `actor` is who did it (for a deletion, who deleted the branch).
 */
export interface FakePullEvent {
  readonly id: number;
  readonly event: 'closed' | 'reopened' | 'merged' | 'head_ref_deleted';
  readonly actor: string;
  readonly createdAt: string;
  /** The merge commit, for `merged`. */
  readonly commitId: string | null;
}

export interface FakeComment {
  readonly id: number;
  readonly repo: FakeRepo;
  readonly issue: number;
  readonly user: string;
  readonly body: string;
  readonly createdAt: string;
}

const ALL_WRITE: Record<FakePermission, FakeAccess> = {
  contents: 'write',
  pull_requests: 'write',
  administration: 'write',
  issues: 'write',
};

export class FakeGitHubWorld {
  readonly root: string;
  readonly now: () => Date;
  readonly repos = new Map<string, FakeRepo>();
  readonly pulls: FakePull[] = [];
  readonly comments: FakeComment[] = [];
  readonly #tokens = new Map<string, { principal: Principal; revoked: boolean }>();
  readonly #users = new Map<string, number>();
  readonly #orgs = new Map<string, { id: number; members: Set<string> }>();
  #nextId = 1000;

  constructor(options: {
    root: string;
    now: () => Date;
    tokens: readonly FakeGitHubToken[];
    organizations: readonly { login: string; members: readonly string[] }[];
    /** Ids handed out before a restart (see `fake-github-store.ts`): kept, and never handed out again. */
    counters?: { nextId: number; users: readonly (readonly [string, number])[] } | undefined;
  }) {
    this.root = options.root;
    this.now = options.now;
    if (options.counters !== undefined) {
      this.#nextId = options.counters.nextId;
      for (const [login, id] of options.counters.users) this.#users.set(login, id);
    }
    for (const org of options.organizations)
      this.#orgs.set(org.login.toLowerCase(), { id: this.nextId(), members: new Set(org.members) });
    for (const token of options.tokens) this.addToken(token);
  }

  nextId(): number {
    return ++this.#nextId;
  }

  /** The id counter and users' ids, as the store keeps them. */
  counters(): { nextId: number; users: [string, number][] } {
    return { nextId: this.#nextId, users: [...this.#users] };
  }

  timestamp(): string {
    return this.now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
  }

  addToken(token: FakeGitHubToken): void {
    this.userId(token.login);
    this.#tokens.set(token.token, {
      principal: {
        login: token.login,
        kind: token.kind ?? 'fine-grained',
        permissions: { ...ALL_WRITE, ...token.permissions },
      },
      revoked: false,
    });
  }

  /** The knob "bad token": a token GitHub no longer accepts (401 Bad credentials). */
  revokeToken(token: string): void {
    const entry = this.#tokens.get(token);
    if (entry !== undefined) entry.revoked = true;
  }

  /** Who a token is: a principal, `'bad'` for a token GitHub does not accept, undefined for none. */
  authenticate(token: string | undefined): Principal | 'bad' | undefined {
    if (token === undefined) return undefined;
    const entry = this.#tokens.get(token);
    return entry === undefined || entry.revoked ? 'bad' : entry.principal;
  }

  userId(login: string): number {
    const key = login.toLowerCase();
    const org = this.#orgs.get(key);
    if (org !== undefined) return org.id;
    let id = this.#users.get(key);
    if (id === undefined) this.#users.set(key, (id = this.nextId()));
    return id;
  }

  isOrg(login: string): boolean {
    return this.#orgs.has(login.toLowerCase());
  }

  isMember(org: string, login: string): boolean {
    return this.#orgs.get(org.toLowerCase())?.members.has(login) ?? false;
  }

  ownerExists(login: string): boolean {
    const key = login.toLowerCase();
    return this.#orgs.has(key) || this.#users.has(key);
  }

  gitDir(owner: string, name: string): string {
    return join(this.root, owner.toLowerCase(), `${name.toLowerCase()}.git`);
  }

  repo(owner: string, name: string): FakeRepo | undefined {
    return this.repos.get(`${owner}/${name}`.toLowerCase());
  }

  pullsOf(repo: FakeRepo): FakePull[] {
    return this.pulls.filter((p) => p.repo === repo);
  }

  /** Adds a state event to a pull request's timeline, now. */
  pullEvent(
    pr: FakePull,
    event: FakePullEvent['event'],
    actor: string,
    commitId: string | null = null,
  ): void {
    pr.events.push({ id: this.nextId(), event, actor, createdAt: this.timestamp(), commitId });
  }

  /** Whether `principal` acts for the repository's owner (the user, or a member of the org). */
  isOwner(principal: Principal | undefined, owner: string): boolean {
    if (principal === undefined) return false;
    return (
      principal.login.toLowerCase() === owner.toLowerCase() || this.isMember(owner, principal.login)
    );
  }

  canSee(principal: Principal | undefined, repo: FakeRepo): boolean {
    return !repo.private || this.isOwner(principal, repo.owner);
  }

  /**
   * Whether `principal` may read (or write) `permission` on `repo`, or the answer GitHub gives
   * when it may not: 404 for a repository it cannot see or a classic token's missing scope, 403
   * naming the permission for a fine-grained token, 401 for a write without a token.
   */
  deny(
    principal: Principal | undefined,
    repo: FakeRepo,
    permission: FakePermission,
    level: 'read' | 'write',
  ): Reply | undefined {
    if (!this.canSee(principal, repo)) return errorReply(404, 'Not Found');
    if (level === 'read') {
      if (!repo.private) return undefined;
      if (principal !== undefined && principal.permissions[permission] !== 'none') return undefined;
    } else {
      if (principal === undefined) return errorReply(401, 'Requires authentication');
      if (this.isOwner(principal, repo.owner) && principal.permissions[permission] === 'write')
        return undefined;
    }
    return this.refusal(principal, permission, level);
  }

  /** What GitHub answers a token that lacks a permission (see {@link deny}). */
  refusal(
    principal: Principal | undefined,
    permission: FakePermission,
    level: 'read' | 'write',
  ): Reply {
    if (principal?.kind === 'classic')
      return errorReply(404, 'Not Found', {
        headers: { 'x-accepted-oauth-scopes': 'repo', 'x-oauth-scopes': scopes(principal) },
      });
    return errorReply(403, 'Resource not accessible by personal access token', {
      headers: { 'x-accepted-github-permissions': `${permission}=${level}` },
    });
  }
}

/** A classic token's scopes, as GitHub lists them in `x-oauth-scopes`. */
export function scopes(principal: Principal): string {
  return principal.permissions.contents === 'write' ? 'repo' : 'read:user';
}
