import type { RefPublisher } from './ref-publisher.js';
import type { RepoHost, RepoRef } from './repo-host.js';
import type { WaitReporter } from './waits.js';

/**
 * A run's repository on a code host, as the engine drives it: the host's API, the one publisher
 * every branch the run owns goes through (the worker's too), and a way to bring the host's commits
 * (a merge it made) into the local repository.
 */
export interface RunRemote {
  readonly repo: RepoRef & { readonly htmlUrl: string };
  readonly host: RepoHost;
  readonly publisher: RefPublisher;
  /** Brings commit `sha` (reachable from `branch` on the remote) into the local object store; moves no local ref. */
  fetchCommit(branch: string, sha: string): Promise<void>;
  /** Fetches `branch` from the remote into the local object store; its head, or undefined when it does not exist. */
  fetchBranch(branch: string): Promise<string | undefined>;
  /**
   * After landing: the local repository's view of the remote `branch` (its `origin/<branch>`
   * tracking ref, and the local branch's upstream when it has none) is `sha`, as on the host.
   * Best effort; only when `origin` is the run's repository.
   */
  trackRemoteHead?(branch: string, sha: string): Promise<void>;
  /** Where the host's waits (rate limits) are reported, once the run's context exists. */
  watchWaits?(report: WaitReporter): void;
}
