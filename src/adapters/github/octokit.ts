import { Octokit } from 'octokit';
import { isLoopbackUrl } from '../../core/loopback.js';
import { gateFor } from './gate.js';

import { GITHUB_API_URL } from './api-url.js';

export { GITHUB_API_URL, gitHubApiUrl } from './api-url.js';

/** A wait for GitHub's rate limit, reported before it starts. */
export interface RateLimitWait {
  readonly reason: 'rate-limit' | 'secondary-rate-limit';
  readonly until: Date;
}

export interface OctokitOptions {
  readonly token: string;
  /** The REST API's base URL (default https://api.github.com; `GITHUB_API_URL`). */
  readonly baseUrl?: string;
  /**
   * Rate-limit handling by `@octokit/plugin-throttling` (default on). Tests turn it off, except
   * the tests of throttling, which shrink its time unit (`retryAfterBaseValue`, ms per second of
   * `retry-after`).
   */
  readonly throttle?:
    | false
    | { readonly retryAfterBaseValue?: number; readonly fallbackSecondaryRateRetryAfter?: number };
  /** The longest single wait for a rate limit (default 60 s); past it the call fails, saying when to resume. */
  readonly maxWaitMs?: number;
  /** Told of each rate-limit wait before it starts. */
  readonly onWait?: (wait: RateLimitWait) => void;
  /** `@octokit/plugin-retry`'s time unit for 5xx retries of reads (default 1000 ms; tests shrink it). */
  readonly retryAfterBaseValue?: number;
  /** A request with no answer after this long fails (default 60 s): its outcome is then unknown. */
  readonly requestTimeoutMs?: number;
  readonly fetch?: typeof fetch;
  readonly now?: () => number;
}

/**
 * Statuses `@octokit/plugin-retry` never retries: a 405 (not mergeable) or 409 (head moved) will not
 * change by asking again, and a 429 is the throttling plugin's (it waits as GitHub says, up to the cap).
 */
export const DO_NOT_RETRY = [400, 401, 403, 404, 405, 409, 410, 422, 429, 451];

/** At most this many waits per request for a rate limit. */
const MAX_RATE_LIMIT_RETRIES = 3;

/**
 * A stand-in for the throttling plugin's pacing groups that lets each request through at once: the
 * plugin spaces GitHub's writes (1 s apart, 3 s for those that notify someone), as GitHub asks of
 * clients of its servers. A GitHub on this machine (the fake `maker demo` and the tests serve) is
 * not GitHub's servers, and the pacing would only make a person (or a test) wait.
 */
const UNPACED = {
  key: () => ({
    schedule: (_job: unknown, task: (...args: unknown[]) => unknown, ...args: unknown[]) =>
      Promise.resolve().then(() => task(...args)),
  }),
};

/**
 * The `octokit` client (with its retry and throttling plugins) as MAKER configures it: 405/409
 * never retried; rate limits waited out up to a cap, each wait reported through `onWait`; writes
 * paced as GitHub asks, except on a loopback API (see {@link UNPACED}); its log silenced (stdout
 * belongs to the MCP protocol).
 */
export function createOctokit(options: OctokitOptions): Octokit {
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  const now = options.now ?? Date.now;
  const decide =
    (reason: RateLimitWait['reason']) =>
    (retryAfter: number, _options: unknown, _octokit: unknown, retryCount: number): boolean => {
      const waitMs = retryAfter * 1000;
      if (waitMs > maxWaitMs || retryCount >= MAX_RATE_LIMIT_RETRIES) return false;
      options.onWait?.({ reason, until: new Date(now() + waitMs) });
      return true;
    };
  const silent = () => undefined;
  const baseFetch = options.fetch ?? fetch;
  const timeoutMs = options.requestTimeoutMs ?? 60_000;
  const baseUrl = (options.baseUrl ?? GITHUB_API_URL).replace(/\/+$/, '');
  // Every request passes the token's one gate, which knows GitHub's current limit.
  const gate = options.throttle === false ? undefined : gateFor(baseUrl, options.token);
  const unitMs =
    (options.throttle === false ? undefined : options.throttle?.retryAfterBaseValue) ?? 1000;
  const timedFetch: typeof fetch = async (input, init) => {
    const held = await gate?.pass(now, maxWaitMs, unitMs, init?.signal, ({ primary, until }) =>
      options.onWait?.({ reason: primary ? 'rate-limit' : 'secondary-rate-limit', until }),
    );
    if (held !== undefined) return held;
    const response = await baseFetch(input, {
      ...init,
      signal: init?.signal ?? AbortSignal.timeout(timeoutMs),
    });
    gate?.observe(response.status, response.headers, now(), unitMs);
    return response;
  };
  return new Octokit({
    auth: options.token,
    baseUrl,
    userAgent: 'maker-gemini-cli',
    log: { debug: silent, info: silent, warn: silent, error: silent },
    retry: {
      doNotRetry: DO_NOT_RETRY,
      ...(options.retryAfterBaseValue === undefined
        ? {}
        : { retryAfterBaseValue: options.retryAfterBaseValue }),
    },
    throttle:
      options.throttle === false
        ? { enabled: false }
        : {
            onRateLimit: decide('rate-limit'),
            onSecondaryRateLimit: decide('secondary-rate-limit'),
            // The plugin types these as Bottleneck groups; it calls only key(id).schedule(job, task).
            ...(isLoopbackUrl(baseUrl)
              ? ({ write: UNPACED, notifications: UNPACED } as object)
              : {}),
            ...options.throttle,
          },
    request: { fetch: timedFetch },
  });
}
