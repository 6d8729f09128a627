import type { Octokit } from 'octokit';
import { UsageError } from '../../core/errors.js';
import { abortableSleep } from '../../core/sleep.js';
import type {
  MergeOutcome,
  PullRequestInfo,
  PullRequestSpec,
  RepoHost,
  RepoRef,
  RepositoryInfo,
  RepositorySpec,
} from '../../ports/repo-host.js';
import { isRequestError, toGitHubError, type GitHubPermission } from './errors.js';
import { readWhyClosed, restoreBranch } from './head-deleted.js';
import { createOnce, type CreateOp } from './create-once.js';
import { mergePull } from './merge-pull.js';
import { createOctokit, type OctokitOptions } from './octokit.js';
import {
  commentSchema,
  parse,
  pullInfo,
  pullSchema,
  repositoryInfo,
  repositorySchema,
  userSchema,
  type GitHubPull,
  type GitHubRepository,
} from './schemas.js';

export interface GitHubHostOptions {
  readonly octokit: Octokit;
  /** The token the octokit sends, so no message can carry it. */
  readonly token: string;
  /** Attempts at a create whose outcome stays unknown (default 3), each after a lookup. */
  readonly createAttempts?: number;
  /** Reads of a pull request while GitHub computes its mergeability (default 6, backing off from 250 ms). */
  readonly mergeablePolls?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * {@link RepoHost} on GitHub's REST API through octokit. Creates (repository, pull request,
 * comment) are sent without automatic retries; when one's outcome is unknown, a lookup decides
 * whether it exists before it is sent again, so each is made once.
 */
export class GitHubHost implements RepoHost {
  readonly #octokit: Octokit;
  readonly #token: string;
  readonly #attempts: number;
  readonly #polls: number;
  readonly #sleep: (ms: number) => Promise<void>;
  #login: Promise<string> | undefined;

  constructor(options: GitHubHostOptions) {
    this.#octokit = options.octokit;
    this.#token = options.token;
    this.#attempts = options.createAttempts ?? 3;
    this.#polls = options.mergeablePolls ?? 6;
    this.#sleep = options.sleep ?? ((ms) => abortableSleep(ms));
  }

  async ensureRepository(spec: RepositorySpec): Promise<RepositoryInfo> {
    const full = `${spec.owner}/${spec.name}`;
    const found = await this.#findRepository(spec);
    if (found !== undefined) return repositoryInfo(found, false);
    const login = await this.#currentLogin();
    const personal = login.toLowerCase() === spec.owner.toLowerCase();
    const body = {
      name: spec.name,
      private: spec.private ?? true,
      auto_init: spec.autoInit ?? false,
      ...(spec.description === undefined ? {} : { description: spec.description }),
      request: { retries: 0 },
    };
    const action = personal
      ? `create the repository ${full}`
      : `create the repository ${full} in the organisation ${spec.owner} (as ${login})`;
    return this.#createOnce({
      action,
      needs: 'administration',
      // Creating under one's own user, a 404 can only mean the token may not.
      repoSeen: personal,
      create: async () =>
        repositoryInfo(
          parse(
            repositorySchema,
            (personal
              ? await this.#octokit.rest.repos.createForAuthenticatedUser(body)
              : await this.#octokit.rest.repos.createInOrg({ org: spec.owner, ...body })
            ).data,
            action,
          ),
          true,
        ),
      // After "already exists" it was there before; after an unknown outcome, this call made it.
      lookup: async (exists) => {
        const repo = await this.#findRepository(spec);
        return repo === undefined ? undefined : repositoryInfo(repo, !exists);
      },
      exists: (messages) => messages.some((m) => /already exists/i.test(m)),
      hidden: `The repository ${full} exists, but the token cannot see it. Give the token access to it (fine-grained token: Repository access), or choose another name.`,
    });
  }

  /**
   * Who the token is, and (classic tokens) its scopes, read without changing anything: for checks
   * before a run. A bad token throws the `auth` error.
   */
  async whoAmI(): Promise<{ login: string; scopes: readonly string[] | undefined }> {
    return this.#call({ action: 'read the token’s user' }, async () => {
      const { data, headers } = await this.#octokit.rest.users.getAuthenticated();
      const raw = headers['x-oauth-scopes'];
      return {
        login: parse(userSchema, data, 'read the token’s user').login,
        scopes:
          typeof raw === 'string'
            ? raw
                .split(',')
                .map((s) => s.trim())
                .filter((s) => s !== '')
            : undefined,
      };
    });
  }

  /** Whether `login` is an organisation the token can see (a user, or nobody, is not). */
  async isOrganisation(login: string): Promise<boolean> {
    const action = `read the organisation ${login}`;
    try {
      await this.#octokit.rest.orgs.get({ org: login });
      return true;
    } catch (error) {
      if (isRequestError(error) && error.status === 404 && error.response !== undefined)
        return false;
      throw toGitHubError(error, { action, token: this.#token });
    }
  }

  /** The repository and what the token's user may do there, or undefined when it cannot be seen. */
  async inspectRepository(
    ref: RepoRef,
  ): Promise<
    (RepositoryInfo & { readonly canPush: boolean; readonly canAdminister: boolean }) | undefined
  > {
    const repo = await this.#findRepository(ref);
    if (repo === undefined) return undefined;
    return {
      ...repositoryInfo(repo, false),
      canPush: repo.permissions?.push ?? true,
      canAdminister: repo.permissions?.admin ?? true,
    };
  }

  async findPullRequest(
    repo: RepoRef,
    head: string,
    base?: string,
  ): Promise<PullRequestInfo | undefined> {
    const action = `look for the pull request from ${head} in ${repo.owner}/${repo.name}`;
    const pulls = await this.#call({ action, needs: 'pull_requests' }, () =>
      this.#octokit.paginate(this.#octokit.rest.pulls.list, {
        owner: repo.owner,
        repo: repo.name,
        // With its owner prefix: GitHub silently ignores a bare branch name here.
        head: `${repo.owner}:${head}`,
        state: 'all',
        per_page: 100,
        ...(base === undefined ? {} : { base }),
      }),
    );
    const ours = pulls
      .map((p) => parse(pullSchema, p, action))
      .filter(
        (p) =>
          p.head.ref === head &&
          (p.head.repo == null ||
            p.head.repo.full_name.toLowerCase() === `${repo.owner}/${repo.name}`.toLowerCase()) &&
          (base === undefined || p.base.ref === base),
      )
      .sort((a, b) => b.number - a.number);
    return ours[0] === undefined ? undefined : pullInfo(ours[0]);
  }

  async openPullRequest(repo: RepoRef, spec: PullRequestSpec): Promise<PullRequestInfo> {
    const found = await this.findPullRequest(repo, spec.head, spec.base);
    if (found !== undefined) return found;
    const action = `open a pull request from ${spec.head} into ${spec.base} in ${repo.owner}/${repo.name}`;
    return this.#createOnce({
      action,
      needs: 'pull_requests',
      repoSeen: true,
      create: async () =>
        pullInfo(
          parse(
            pullSchema,
            (
              await this.#octokit.rest.pulls.create({
                owner: repo.owner,
                repo: repo.name,
                head: spec.head,
                base: spec.base,
                title: spec.title,
                body: spec.body,
                request: { retries: 0 },
              })
            ).data,
            action,
          ),
        ),
      lookup: () => this.findPullRequest(repo, spec.head, spec.base),
      exists: (messages) => messages.some((m) => /pull request already exists/i.test(m)),
      hidden: `GitHub says a pull request from ${spec.head} into ${spec.base} exists in ${repo.owner}/${repo.name}, but it cannot be listed. Check the token's Pull requests permission.`,
    });
  }

  async getPullRequest(repo: RepoRef, number: number): Promise<PullRequestInfo> {
    return pullInfo(await this.#getPull(repo, number));
  }

  whyClosed(repo: RepoRef, number: number): Promise<'head-deleted' | 'someone'> {
    return readWhyClosed(this.#octokit, repo, number, (ctx, fn) => this.#call(ctx, fn));
  }

  restoreBranch(repo: RepoRef, branch: string, sha: string): Promise<void> {
    return restoreBranch(this.#octokit, repo, branch, sha, (ctx, fn) => this.#call(ctx, fn));
  }

  async updatePullRequest(
    repo: RepoRef,
    number: number,
    change: { title?: string; body?: string; state?: 'open' | 'closed' },
  ): Promise<PullRequestInfo> {
    const action = `update pull request #${number} in ${repo.owner}/${repo.name}`;
    try {
      return pullInfo(
        parse(
          pullSchema,
          (
            await this.#octokit.rest.pulls.update({
              owner: repo.owner,
              repo: repo.name,
              pull_number: number,
              ...change,
            })
          ).data,
          action,
        ),
      );
    } catch (error) {
      // Closing what is already merged or closed is done.
      if (change.state === 'closed' && isRequestError(error) && error.status === 422) {
        const now = await this.getPullRequest(repo, number);
        if (now.state !== 'open') return now;
      }
      throw toGitHubError(error, {
        action,
        needs: 'pull_requests',
        repoSeen: true,
        token: this.#token,
      });
    }
  }

  mergePullRequest(
    repo: RepoRef,
    number: number,
    merge: { expectedHeadSha: string; title?: string; message?: string },
  ): Promise<MergeOutcome> {
    return mergePull(
      {
        octokit: this.#octokit,
        token: this.#token,
        attempts: this.#attempts,
        polls: this.#polls,
        sleep: this.#sleep,
        getPull: (r, n) => this.#getPull(r, n),
      },
      repo,
      number,
      merge,
    );
  }

  async addComment(
    repo: RepoRef,
    number: number,
    comment: { key: string; body: string },
  ): Promise<{ id: number; url: string }> {
    if (!/^[\w.:/-]{1,100}$/.test(comment.key))
      throw new UsageError(
        `A comment key is letters, digits and ._:/- only (got "${comment.key}").`,
      );
    const marker = `<!-- maker:${comment.key} -->`;
    const action = `comment on pull request #${number} in ${repo.owner}/${repo.name}`;
    const lookup = async () => {
      const comments = await this.#call({ action, needs: 'pull_requests', repoSeen: true }, () =>
        this.#octokit.paginate(this.#octokit.rest.issues.listComments, {
          owner: repo.owner,
          repo: repo.name,
          issue_number: number,
          per_page: 100,
        }),
      );
      const found = comments
        .map((c) => parse(commentSchema, c, action))
        .find((c) => c.body?.includes(marker) === true);
      return found === undefined ? undefined : { id: found.id, url: found.html_url };
    };
    const existing = await lookup();
    if (existing !== undefined) return existing;
    return this.#createOnce({
      action,
      needs: 'pull_requests',
      repoSeen: true,
      create: async () => {
        const { data } = await this.#octokit.rest.issues.createComment({
          owner: repo.owner,
          repo: repo.name,
          issue_number: number,
          body: `${comment.body}\n\n${marker}`,
          request: { retries: 0 },
        });
        const created = parse(commentSchema, data, action);
        return { id: created.id, url: created.html_url };
      },
      lookup: () => lookup(),
      exists: () => false,
      hidden: '',
    });
  }

  #createOnce<T>(op: CreateOp<T>): Promise<T> {
    return createOnce(op, { token: this.#token, attempts: this.#attempts, sleep: this.#sleep });
  }

  async #findRepository(ref: RepoRef): Promise<GitHubRepository | undefined> {
    const action = `read the repository ${ref.owner}/${ref.name}`;
    try {
      const { data } = await this.#octokit.rest.repos.get({ owner: ref.owner, repo: ref.name });
      return parse(repositorySchema, data, action);
    } catch (error) {
      if (isRequestError(error) && error.status === 404 && error.response !== undefined)
        return undefined;
      throw toGitHubError(error, { action, token: this.#token });
    }
  }

  #currentLogin(): Promise<string> {
    this.#login ??= this.#call({ action: 'read the token’s user' }, async () => {
      const { data } = await this.#octokit.rest.users.getAuthenticated();
      return parse(userSchema, data, 'read the token’s user').login;
    }).catch((error: unknown) => {
      this.#login = undefined;
      throw error;
    });
    return this.#login;
  }

  async #getPull(repo: RepoRef, number: number): Promise<GitHubPull> {
    const action = `read pull request #${number} in ${repo.owner}/${repo.name}`;
    return this.#call({ action, needs: 'pull_requests' }, async () =>
      parse(
        pullSchema,
        (
          await this.#octokit.rest.pulls.get({
            owner: repo.owner,
            repo: repo.name,
            pull_number: number,
          })
        ).data,
        action,
      ),
    );
  }

  async #call<T>(
    ctx: { action: string; needs?: GitHubPermission; repoSeen?: boolean },
    fn: () => Promise<T>,
  ): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw toGitHubError(error, { ...ctx, token: this.#token });
    }
  }
}

/** A {@link GitHubHost} over a MAKER-configured octokit (see {@link createOctokit}). */
export function createGitHubHost(
  options: OctokitOptions & Omit<GitHubHostOptions, 'octokit' | 'token'>,
): GitHubHost {
  return new GitHubHost({ ...options, octokit: createOctokit(options) });
}
