import type { WaitReporter } from '../../ports/waits.js';
import type { JulesTransport } from './http.js';

export interface JulesClientOptions {
  readonly apiKey: string;
  readonly baseUrl?: string;
  /** Sends the requests through this `fetch` instead of the default transport (`node:http(s)`). */
  readonly fetch?: typeof fetch;
  /** Sends the requests through this transport (default: `nodeTransport()`; `fetch` wins when given). */
  readonly transport?: JulesTransport;
  /** First backoff delay in ms (default 1000), doubled per attempt up to `maxDelayMs` (default 30,000), with full jitter. */
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  /** How long every call may fail before the run stops (default 10 min). */
  readonly outageMs?: number;
  /** The longest `Retry-After` honoured (default 60 s); a longer one stops the run, saying when to resume. */
  readonly maxRetryAfterMs?: number;
  /** A request with no answer after this long is a failure (default 60 s). */
  readonly requestTimeoutMs?: number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now?: () => number;
  readonly random?: () => number;
}

/** Per call: cancellation, and where waits on Jules' account are reported. */
export interface CallOptions {
  /** Cancels the call: its requests and its waits. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Cancels the requests only, when they must outlive `signal` (a create under way is let finish,
   * so its session is known, while waits stop at once). Default: `signal`.
   */
  readonly requestSignal?: AbortSignal | undefined;
  readonly onWait?: WaitReporter | undefined;
}

export interface CreateSessionRequest {
  readonly prompt: string;
  readonly title: string;
  readonly source: string;
  readonly startingBranch: string;
  readonly requirePlanApproval: boolean;
}

export interface Page<T> {
  readonly items: T[];
  readonly nextPageToken: string | undefined;
}
