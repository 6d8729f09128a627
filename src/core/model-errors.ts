import { ApiCallError } from './errors.js';
import { resetWords, waitWords, type QuotaAnswer } from './rate-limits.js';
import { clause } from './text.js';

/**
 * How a model call fails when the service or the way to it is the cause, so that whoever retries
 * knows what to do: a per-minute limit is waited out ({@link RateLimitedError}), a daily one stops
 * the run at once with its reset ({@link QuotaSpentError}), and a model that went silent or a
 * process that died is a transport failure retried with backoff ({@link ModelTransportError}).
 */

/** A per-minute limit: retry after `retryAfterMs`. */
export class RateLimitedError extends ApiCallError {
  override readonly name = 'RateLimitedError';
  readonly retryAfterMs: number;

  constructor(service: string, retryAfterMs: number, said: string) {
    super(
      service,
      `Rate limited by ${serviceName(service)} (${clause(said)}): retrying in ${waitWords(retryAfterMs)}.`,
      {
        status: 429,
        isRetryable: true,
      },
    );
    this.retryAfterMs = retryAfterMs;
  }
}

/** A daily limit: nothing passes before its reset, so the run stops now, resumable then. */
export class QuotaSpentError extends ApiCallError {
  override readonly name = 'QuotaSpentError';
  readonly resetMs: number | undefined;

  constructor(
    service: string,
    answer: { resetMs: number | undefined; said: string },
    now: Date,
    other: string,
  ) {
    super(
      service,
      `${capital(serviceName(service))}'s daily quota is spent (${clause(answer.said)}). It ${resetWords(answer.resetMs, now)}; run \`maker resume\` then: the run's state is saved and nothing done is lost. ${other}`,
      { status: 429, isRetryable: false },
    );
    this.resetMs = answer.resetMs;
  }
}

/** No answer in time, an answer that stopped, or a process that ended mid-call: retried. */
export class ModelTransportError extends ApiCallError {
  override readonly name = 'ModelTransportError';
  constructor(service: string, message: string, options: { cause?: unknown } = {}) {
    super(service, message, { isRetryable: true, ...options });
  }
}

/** The error a quota answer makes. `other`: the way to another access, said with a daily stop. */
export function quotaError(
  service: string,
  answer: QuotaAnswer,
  now: Date,
  other: string,
): RateLimitedError | QuotaSpentError {
  return answer.kind === 'per-minute'
    ? new RateLimitedError(service, answer.retryMs, answer.said)
    : new QuotaSpentError(service, answer, now, other);
}

function serviceName(service: string): string {
  switch (service) {
    case 'gemini-cli':
      return 'Gemini CLI';
    case 'vertex':
      return 'Vertex AI';
    default:
      return 'the Gemini API';
  }
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
