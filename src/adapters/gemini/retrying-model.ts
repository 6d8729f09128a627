import { DEFAULT_MODEL_WAITS, requestDeadlineMs, type ModelWaits } from '../../core/deadlines.js';
import { AbortedError, ApiCallError, MakerError } from '../../core/errors.js';
import { RateLimitedError } from '../../core/model-errors.js';
import { waitWords } from '../../core/rate-limits.js';
import { abortableSleep } from '../../core/sleep.js';
import { clause } from '../../core/text.js';
import type { GenerateRequest, GenerateResult, LanguageModel } from '../../ports/language-model.js';
import type { WaitReporter } from '../../ports/waits.js';

/**
 * The retries of a model's calls, and what they are waiting for, said (the engine's wait port):
 *
 * - a per-minute limit ({@link RateLimitedError}) holds every call of the model until it passes
 *   ("rate limited, retrying in 30 s"), then they go on; limits in a row for longer than
 *   `rateLimitedForMs` stop the run (resumable);
 * - a transport failure (an error marked retryable: no answer in time, an answer that went silent,
 *   a process that died, a 5xx, a lost connection) is retried with backoff, up to `attempts`
 *   tries, then stops the run (resumable) with the cause;
 * - anything else (a daily quota, a sign-in, a refused request) stops at once, as it is.
 *
 * A call that has run for `slowAfterMs` is shown as "waiting on the model" until calls are quick
 * again, so a person never looks at a silent screen without knowing why.
 */

export interface RetryPolicy {
  /** Tries of a call whose transport failed, the first included. */
  readonly attempts: number;
  /** The first backoff; each next one doubles, up to {@link maxBackoffMs}. */
  readonly firstBackoffMs: number;
  readonly maxBackoffMs: number;
  /** How long rate limits may hold the model's calls in a row before the run stops. */
  readonly rateLimitedForMs: number;
  /** A call running this long is shown as a wait on the model. */
  readonly slowAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  attempts: 3,
  firstBackoffMs: 2000,
  maxBackoffMs: 30_000,
  rateLimitedForMs: 15 * 60_000,
  slowAfterMs: 10_000,
};

export interface RetryingModelOptions {
  /** The service waits are shown for: `gemini`, `vertex`, `gemini-cli`. */
  readonly service: string;
  readonly waits?: ModelWaits | undefined;
  readonly policy?: Partial<RetryPolicy> | undefined;
  readonly now?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export class RetryingModel implements LanguageModel {
  readonly id: string;
  readonly #inner: LanguageModel & { close?: () => Promise<void> };
  readonly #options: RetryingModelOptions;
  readonly #policy: RetryPolicy;
  #report: WaitReporter | undefined;
  /** Every call holds until then (a per-minute limit). */
  #pausedUntil = 0;
  /** Since when calls have been rate limited without a success between (undefined: they are not). */
  #limitedSince: number | undefined;
  #endLimitWait: (() => void) | undefined;
  readonly #slow = new Map<object, number>();
  #endSlowWait: (() => void) | undefined;

  constructor(
    inner: LanguageModel & { close?: () => Promise<void> },
    options: RetryingModelOptions,
  ) {
    this.id = inner.id;
    this.#inner = inner;
    this.#options = options;
    this.#policy = { ...DEFAULT_RETRY_POLICY, ...options.policy };
  }

  /** Where waits are reported (the engine's, for the run the model serves). */
  watchWaits(report: WaitReporter): void {
    this.#report = report;
  }

  #now(): number {
    return this.#options.now?.() ?? Date.now();
  }

  #sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return (this.#options.sleep ?? abortableSleep)(ms, signal);
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    /** The retry under way, shown from the failure it follows until the try it makes settles. */
    let retrying: (() => void) | undefined;
    try {
      for (let attempt = 1; ; attempt += 1) {
        await this.#holdWhilePaused(request.signal);
        try {
          const result = await this.#timed(request);
          this.#limitedSince = undefined;
          return result;
        } catch (error) {
          retrying?.();
          if (error instanceof AbortedError || request.signal?.aborted === true) throw error;
          if (error instanceof RateLimitedError) {
            this.#rateLimited(error);
            attempt -= 1; // Waiting out a limit is not a failed try.
            continue;
          }
          if (!(error instanceof MakerError) || !error.isRetryable) throw error;
          if (attempt >= this.#policy.attempts) throw this.#gaveUp(error, attempt);
          const backoff = Math.min(
            this.#policy.maxBackoffMs,
            this.#policy.firstBackoffMs * 2 ** (attempt - 1),
          );
          // Said the moment the try failed, and for as long as the next one may take: a backoff
          // alone (2 s) is too short a wait to be shown, and the person would see nothing.
          retrying = this.#report?.({
            service: this.#options.service,
            reason: `${clause(error.message)}; retrying in ${waitWords(backoff)} (try ${attempt + 1} of ${this.#policy.attempts})`,
            until: new Date(this.#now() + backoff + this.#deadlineMs(request)),
          });
          await this.#sleep(backoff, request.signal);
        }
      }
    } finally {
      retrying?.();
    }
  }

  /** A per-minute limit: every call holds until it passes, unless limits have lasted too long. */
  #rateLimited(error: RateLimitedError): void {
    const now = this.#now();
    this.#limitedSince ??= now;
    const until = now + error.retryAfterMs;
    if (until - this.#limitedSince > this.#policy.rateLimitedForMs)
      throw new ApiCallError(
        error.service,
        `${clause(error.message.replace(/: retrying in [^.]*/, ''))}, and calls have been rate limited for ${waitWords(now - this.#limitedSince)} in a row, so the run stops here. Its state is saved: run \`maker resume\` in a few minutes (a lower --concurrency makes fewer calls at once).`,
        { status: 429, isRetryable: false, cause: error },
      );
    if (until <= this.#pausedUntil) return;
    this.#pausedUntil = until;
    this.#endLimitWait?.();
    this.#endLimitWait = this.#report?.({
      service: this.#options.service,
      reason: `rate limited, retrying in ${waitWords(error.retryAfterMs)}`,
      until: new Date(until),
    });
  }

  async #holdWhilePaused(signal: AbortSignal | undefined): Promise<void> {
    for (
      let left = this.#pausedUntil - this.#now();
      left > 0;
      left = this.#pausedUntil - this.#now()
    )
      await this.#sleep(left, signal);
    this.#endLimitWait?.();
    this.#endLimitWait = undefined;
  }

  /** The call, shown as a wait on the model once it has run {@link RetryPolicy.slowAfterMs}. */
  async #timed(request: GenerateRequest): Promise<GenerateResult> {
    const key = {};
    const deadline = this.#now() + this.#deadlineMs(request);
    const timer = setTimeout(() => {
      this.#slow.set(key, deadline);
      if (this.#endSlowWait === undefined && this.#report !== undefined)
        this.#endSlowWait = this.#report({
          service: this.#options.service,
          reason: 'waiting on the model',
          until: new Date(Math.max(...this.#slow.values())),
          since: new Date(this.#now() - this.#policy.slowAfterMs),
        });
    }, this.#policy.slowAfterMs);
    timer.unref();
    try {
      return await this.#inner.generate(request);
    } finally {
      clearTimeout(timer);
      this.#slow.delete(key);
      if (this.#slow.size === 0) {
        this.#endSlowWait?.();
        this.#endSlowWait = undefined;
      }
    }
  }

  /** How long one try of `request` may take (its deadline, from its size). */
  #deadlineMs(request: GenerateRequest): number {
    return requestDeadlineMs(
      {
        promptChars: (request.system ?? '').length + request.prompt.length,
        maxOutputTokens: request.maxOutputTokens,
      },
      this.#options.waits ?? DEFAULT_MODEL_WAITS,
    );
  }

  #gaveUp(error: MakerError, attempts: number): ApiCallError {
    return new ApiCallError(
      error instanceof ApiCallError ? error.service : this.#options.service,
      `${clause(error.message)} (tried ${attempts} times). The run stops here; its state is saved: run \`maker resume\` once the model answers again.`,
      {
        ...(error instanceof ApiCallError && error.status !== undefined
          ? { status: error.status }
          : {}),
        isRetryable: false,
        cause: error,
      },
    );
  }

  close(): Promise<void> {
    return this.#inner.close?.() ?? Promise.resolve();
  }
}
