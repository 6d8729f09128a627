import type { RefPublisher } from '../../ports/ref-publisher.js';
import type { Worker } from '../../ports/worker.js';
import type { JulesClient } from './client.js';

export interface JulesWorkerOptions {
  readonly client: JulesClient;
  /** The repository as a Jules source, e.g. `sources/github/owner/repo` (or how to find it). */
  readonly source: string | (() => Promise<string>);
  /**
   * The run's one publisher (the engine's too): makes `branch` exist on the remote Jules reads, at
   * `commit`, before a session starts from it. Branches asked for at one moment share one push.
   */
  readonly publisher: Pick<RefPublisher, 'publish'>;
  /** Sessions at once (the plan's concurrent-task limit: 3 free, 15 Pro, 60 Ultra). */
  readonly concurrency?: number;
  /**
   * The page where a person follows a session (Jules' own, for Jules itself); absent for a
   * server whose sessions have none (a local fake), so no dead link is shown.
   */
  readonly sessionUrl?: (id: string) => string;
  /**
   * Sessions created in any 24 hours (the plan's task limit: 15 free, 100 Pro, 300 Ultra), counted
   * through the engine's persisted ledger across runs. Unlimited when absent.
   */
  readonly dailySessions?: number;
  /** Ask a person to approve or veto each plan (select/veto question) instead of approving it. */
  readonly planReview?: boolean;
  /** Merge-conflict integrations (which Jules is not asked to do) go to this worker. */
  readonly integrations?: Worker;
  /**
   * First poll delay, its growth per poll and its cap (default 15 s, ×1.5, 60 s: sessions take
   * minutes). Once a session of this worker is seen finished, later sessions are first looked at
   * after the shortest such time (see {@link PollSchedule}).
   */
  readonly pollMs?: { readonly initial: number; readonly max: number; readonly factor?: number };
  /** Re-check delay while waiting for the repository to be connected to Jules (default 15 s, doubling to 5 min). */
  readonly sourceRetryMs?: number;
  /** Give up on a session after this long (ms); the candidate is then red-flagged. */
  readonly timeoutMs?: number;
  /** How long a create of unknown outcome is looked for before another (default: request timeout + 60 s). */
  readonly lookupWindowMs?: number;
  /** Longest wait between two looks while Jules' concurrent task limit is reached (default 60 s). */
  readonly limitRecheckMs?: number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now?: () => number;
}
