import { ApiCallError, MakerError, redactSecrets } from '../../core/errors.js';
import { sentences } from '../../core/text.js';
import { errorEnvelopeSchema } from './schemas.js';

/**
 * Why a Jules call failed, for callers that branch on it. Transport kinds (`network`, `server`,
 * `rate-limit`) are retried by the client; `unavailable` is what is left when they last too long;
 * `concurrent-limit` and `daily-limit` are the plan's task limits answered to a new session;
 * `refused` is a new session Jules would not start for a reason that is not the candidate's (a bad
 * request, a starting branch it cannot see).
 */
export type JulesErrorKind =
  | 'auth'
  | 'refused'
  | 'concurrent-limit'
  | 'daily-limit'
  | 'rate-limit'
  | 'unavailable'
  | 'not-found'
  | 'bad-request'
  | 'server'
  | 'network'
  | 'protocol';

/** A failed Jules call. The key never appears in it. */
export class JulesError extends ApiCallError {
  override readonly name = 'JulesError';
  readonly kind: JulesErrorKind;
  /** The API's field violations, for a bad request. */
  readonly fieldViolations: readonly { readonly field: string; readonly description: string }[];
  /** The request may have been carried out though no answer says so (no reply, a 5xx, a timeout). */
  readonly outcomeUnknown: boolean;
  /** When trying again can help (a quota frees up, a Retry-After ends), if Jules said. */
  readonly resumeAt: Date | undefined;

  constructor(
    kind: JulesErrorKind,
    message: string,
    options: {
      status?: number;
      fieldViolations?: JulesError['fieldViolations'];
      isRetryable?: boolean;
      outcomeUnknown?: boolean;
      resumeAt?: Date;
      cause?: unknown;
    } = {},
  ) {
    super('jules', message, {
      ...(options.status === undefined ? {} : { status: options.status }),
      ...(options.isRetryable === undefined ? {} : { isRetryable: options.isRetryable }),
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.kind = kind;
    this.fieldViolations = options.fieldViolations ?? [];
    this.outcomeUnknown = options.outcomeUnknown ?? false;
    this.resumeAt = options.resumeAt;
  }
}

/** What an error answer says, read from Google's envelope (tolerant of anything else). */
export interface ErrorAnswer {
  readonly message: string;
  readonly fieldViolations: { field: string; description: string }[];
  /** QuotaFailure violations, as "subject: description". */
  readonly quota: string[];
  /** How long to wait: `Retry-After`, else a RetryInfo detail; undefined when neither says. */
  readonly retryAfterMs: number | undefined;
}

export function readErrorAnswer(
  text: string,
  retryAfterHeader: string | null,
  now: number,
): ErrorAnswer {
  const envelope = errorEnvelopeSchema.safeParse(safeJson(text));
  const error = envelope.success ? envelope.data.error : undefined;
  const details = error?.details ?? [];
  const retryDelay = details.map((d) => d.retryDelay).find((d) => typeof d === 'string');
  const seconds = /^(\d+(?:\.\d+)?)s$/.exec(retryDelay ?? '')?.[1];
  return {
    message: error === undefined ? text.slice(0, 300) : (error.message ?? ''),
    fieldViolations: details
      .flatMap((d) => d.fieldViolations ?? [])
      .map((v) => ({ field: v.field ?? '', description: v.description ?? '' })),
    quota: details
      .flatMap((d) => d.violations ?? [])
      .map((v) => `${v.subject ?? ''}: ${v.description ?? ''}`),
    retryAfterMs:
      retryAfterMs(retryAfterHeader, now) ??
      (seconds === undefined ? undefined : Math.ceil(Number(seconds) * 1000)),
  };
}

/**
 * Which limit a 429 answered to a new session names. Jules' exact bodies are not documented; its
 * concurrent limit is known to read "You are currently at your concurrent task limit", so the words
 * of the message and of any QuotaFailure detail decide: "concurrent", else a daily/24-hour limit,
 * else a plain rate limit.
 */
export function quotaKind(answer: ErrorAnswer): 'concurrent-limit' | 'daily-limit' | 'rate-limit' {
  const words = [answer.message, ...answer.quota].join(' ');
  if (/concurrent/i.test(words)) return 'concurrent-limit';
  if (/\bdaily\b|per day|\b24[- ]?hours?\b/i.test(words)) return 'daily-limit';
  return 'rate-limit';
}

/** The error for a final (non-retried) answer: auth, not found, or a bad request. */
export function answerError(
  status: number,
  answer: ErrorAnswer,
  what: string,
  secrets: readonly string[],
): JulesError {
  const redact = (text: string) => redactSecrets(text, secrets);
  const message = redact(`Jules ${what} failed with ${status}: ${answer.message || 'no message'}`);
  if (status === 401 || status === 403)
    return new JulesError(
      'auth',
      sentences(
        message,
        'Check JULES_API_KEY (Jules settings page) and that the Jules GitHub app can see the repository',
      ),
      { status },
    );
  if (status === 404) return new JulesError('not-found', sentences(message), { status });
  return new JulesError('bad-request', sentences(message), {
    status,
    fieldViolations: answer.fieldViolations.map((v) => ({
      field: v.field,
      description: redact(v.description),
    })),
  });
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** A duration for people: "45 s", "10 min", "2 h". */
export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  const min = Math.round(s / 60);
  return min < 120 ? `${min} min` : `${Math.round(min / 60)} h`;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * No new session can be bought now: the run's 24-hour session budget is spent, or Jules refused one
 * for its plan's daily task limit. The run stops; it can resume at `nextAt`.
 */
export class SessionBudgetError extends MakerError {
  override readonly name = 'SessionBudgetError';
  readonly nextAt: Date;
  constructor(message: string, nextAt: Date) {
    super('session-budget', message);
    this.nextAt = nextAt;
  }
}

/**
 * Errors that stop the run rather than flag the candidate: they say nothing about its content. A
 * refused key, a spent budget or daily limit, and every transport failure the client gave up on.
 */
export function stopsRun(error: unknown): boolean {
  if (error instanceof SessionBudgetError) return true;
  if (!(error instanceof JulesError)) return false;
  return !['bad-request', 'protocol', 'not-found'].includes(error.kind);
}
