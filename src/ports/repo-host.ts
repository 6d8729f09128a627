/** A repository on a code host (GitHub), by owner and name. */
export interface RepoRef {
  readonly owner: string;
  readonly name: string;
}

export interface RepositoryInfo extends RepoRef {
  /** The host's id for it (stable across renames): save it in the state. */
  readonly id: number;
  readonly defaultBranch: string;
  readonly private: boolean;
  /** Its web page, e.g. `https://github.com/o/r`. */
  readonly htmlUrl: string;
  /** What git clones and pushes to (https; never carries a credential). */
  readonly cloneUrl: string;
  /** True when this call created it. */
  readonly created: boolean;
}

export interface RepositorySpec extends RepoRef {
  /** Private unless asked (default true). */
  readonly private?: boolean;
  readonly description?: string;
  /**
   * Create the default branch with an initial commit (for an empty workspace, which then clones
   * it). Leave false when the workspace has history to push: an initial commit would not share it.
   */
  readonly autoInit?: boolean;
}

export interface PullRequestInfo {
  readonly number: number;
  readonly url: string;
  readonly state: 'open' | 'closed' | 'merged';
  readonly headRef: string;
  readonly headSha: string;
  readonly baseRef: string;
  readonly title: string;
  readonly body: string;
  /** Set once merged. */
  readonly mergeCommitSha?: string;
}

export interface PullRequestSpec {
  /** A branch of the same repository. */
  readonly head: string;
  readonly base: string;
  readonly title: string;
  readonly body: string;
}

/** A merge's outcome. Only transport and permission failures throw. */
export type MergeOutcome =
  | { readonly status: 'merged'; readonly sha: string }
  /** The head is no longer the commit the caller expected: nothing was merged. */
  | { readonly status: 'head-moved'; readonly headSha: string }
  /** It does not merge (the base moved and now conflicts, or the host refuses): nothing was merged. */
  | { readonly status: 'not-mergeable'; readonly message: string }
  /** Closed without being merged (by someone, or by a veto). */
  | { readonly status: 'closed' };

/**
 * Where a run's repository lives (GitHub), as the engine uses it. Pure data in and out. Every
 * create is exactly-once: an attempt whose outcome is unknown (no reply, 5xx) is followed by a
 * lookup before anything is created again, and "already exists / merged / closed" is success when
 * the object is the caller's. Failures throw errors whose messages say what to do, never a token.
 */
export interface RepoHost {
  /** The repository, created (user or organisation) when it does not exist. */
  ensureRepository(spec: RepositorySpec): Promise<RepositoryInfo>;
  /** The newest pull request from `head` (any state, or only into `base`), if any. */
  findPullRequest(repo: RepoRef, head: string, base?: string): Promise<PullRequestInfo | undefined>;
  /** The pull request from `head` into `base`: the existing one (in any state), else a new one. */
  openPullRequest(repo: RepoRef, spec: PullRequestSpec): Promise<PullRequestInfo>;
  getPullRequest(repo: RepoRef, number: number): Promise<PullRequestInfo>;
  /**
   * Why a closed, unmerged pull request was closed: `head-deleted` when GitHub closed it because its
   * head branch was deleted, `someone` when a person (or an app) closed it.
   */
  whyClosed(repo: RepoRef, number: number): Promise<'head-deleted' | 'someone'>;
  /** Makes a deleted `branch` exist again at `sha` (a commit the host had); one that exists is left. */
  restoreBranch(repo: RepoRef, branch: string, sha: string): Promise<void>;
  /** Changes title and body, closes (`state: 'closed'`) or reopens (`'open'`): idempotent. */
  updatePullRequest(
    repo: RepoRef,
    number: number,
    change: { readonly title?: string; readonly body?: string; readonly state?: 'open' | 'closed' },
  ): Promise<PullRequestInfo>;
  /**
   * Merges with a merge commit, only if the head is still `expectedHeadSha`. Already merged at that
   * head counts as merged.
   */
  mergePullRequest(
    repo: RepoRef,
    number: number,
    merge: { readonly expectedHeadSha: string; readonly title?: string; readonly message?: string },
  ): Promise<MergeOutcome>;
  /**
   * Adds a comment once: `key` marks it (hidden in its body), and a comment already carrying that
   * key is returned instead of a second one.
   */
  addComment(
    repo: RepoRef,
    number: number,
    comment: { readonly key: string; readonly body: string },
  ): Promise<{ readonly id: number; readonly url: string }>;
}

/** A web link comparing two refs of a repository (GitHub's `…/compare/base...head`). */
export function compareUrl(
  repo: Pick<RepositoryInfo, 'htmlUrl'>,
  base: string,
  head: string,
): string {
  return `${repo.htmlUrl}/compare/${encodeRef(base)}...${encodeRef(head)}`;
}

function encodeRef(ref: string): string {
  return ref.split('/').map(encodeURIComponent).join('/');
}
