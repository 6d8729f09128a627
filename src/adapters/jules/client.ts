import type { ZodType } from 'zod';
import { AbortedError, isRetryableStatus, redactSecrets } from '../../core/errors.js';
import { abortableSleep } from '../../core/sleep.js';
import { sentences } from '../../core/text.js';
import {
  JulesError,
  answerError,
  duration,
  quotaKind,
  readErrorAnswer,
  type ErrorAnswer,
} from './errors.js';
import type {
  CallOptions,
  CreateSessionRequest,
  JulesClientOptions,
  Page,
} from './client-types.js';
import { describe, fetchTransport, request, type JulesTransport } from './http.js';
import { nodeTransport } from './node-transport.js';
import { OutageClock } from './outage.js';
import { ServerClock } from './server-clock.js';
import {
  readAnswer,
  activitiesPageSchema,
  sessionSchema,
  sessionsPageSchema,
  sourceSchema,
  sourcesPageSchema,
  type JulesActivity,
  type JulesSession,
  type JulesSource,
} from './schemas.js';

export { JulesError, retryAfterMs, type JulesErrorKind } from './errors.js';
export { sessionPatch } from './outputs.js';
export type {
  CallOptions,
  CreateSessionRequest,
  JulesClientOptions,
  Page,
} from './client-types.js';
export const JULES_BASE_URL = 'https://jules.googleapis.com/v1alpha';

export const DEFAULT_OUTAGE_MS = 10 * 60_000;

/**
 * The Jules REST API (v1alpha) over HTTP, typed by zod (only the fields MAKER reads).
 *
 * Transport failures (no answer, a timeout, a 408, 5xx, a 429 rate limit, a 2xx whose body cannot
 * be read) are retried with exponential backoff and jitter, a `Retry-After` honoured up to a cap,
 * until Jules has failed every call for the outage tolerance; then, or for a longer `Retry-After`,
 * the call fails as `unavailable`. A create is never retried blindly: when its outcome is unknown
 * it fails `outcomeUnknown` (with `resumeAt` for a `Retry-After`), for the caller to look the
 * session up before creating again. Plan limits answered to a create fail at once as
 * `concurrent-limit` or `daily-limit`. Every wait is reported through `onWait`.
 */
export class JulesClient {
  readonly #o: Required<
    Omit<JulesClientOptions, 'fetch' | 'transport' | 'sleep' | 'random' | 'now'>
  > &
    Pick<JulesClientOptions, 'fetch' | 'transport' | 'sleep' | 'random' | 'now'>;
  readonly #outage: OutageClock;
  readonly #serverClock: ServerClock;
  readonly #transport: JulesTransport;

  constructor(options: JulesClientOptions) {
    this.#o = {
      baseUrl: JULES_BASE_URL,
      baseDelayMs: 1000,
      maxDelayMs: 30_000,
      outageMs: DEFAULT_OUTAGE_MS,
      maxRetryAfterMs: 60_000,
      requestTimeoutMs: 60_000,
      ...options,
    };
    this.#outage = new OutageClock(this.#o.outageMs, () => this.#now());
    this.#serverClock = new ServerClock(() => this.#now());
    this.#transport =
      options.fetch !== undefined
        ? fetchTransport(options.fetch)
        : (options.transport ?? nodeTransport());
  }

  /** How long every call may fail before the run stops. */
  get outageMs(): number {
    return this.#o.outageMs;
  }

  /** Jules' clock minus this machine's (ms), as its answers tell it; undefined before any answer. */
  get serverClockOffsetMs(): number | undefined {
    return this.#serverClock.offsetMs;
  }

  /** How long a request may go unanswered before it counts as failed. */
  get requestTimeoutMs(): number {
    return this.#o.requestTimeoutMs;
  }

  async listSources(
    page: { pageSize?: number; pageToken?: string } = {},
    call: CallOptions = {},
  ): Promise<Page<JulesSource>> {
    const body = await this.#call(
      'GET',
      `/sources${query(page)}`,
      undefined,
      sourcesPageSchema,
      call,
    );
    return { items: body.sources ?? [], nextPageToken: body.nextPageToken ?? undefined };
  }

  getSource(name: string, call: CallOptions = {}): Promise<JulesSource> {
    return this.#call(
      'GET',
      `/${name.split('/').map(encodeURIComponent).join('/')}`,
      undefined,
      sourceSchema,
      call,
    );
  }

  /** Creates a session, once: see the class comment for what a failure means. */
  async createSession(
    request: CreateSessionRequest,
    call: CallOptions = {},
  ): Promise<JulesSession> {
    const session = await this.#call(
      'POST',
      '/sessions',
      {
        prompt: request.prompt,
        title: request.title,
        sourceContext: {
          source: request.source,
          githubRepoContext: { startingBranch: request.startingBranch },
        },
        requirePlanApproval: request.requirePlanApproval,
        automationMode: 'AUTOMATION_MODE_UNSPECIFIED',
      },
      sessionSchema,
      { ...call, creates: true },
    );
    this.#serverClock.observeCreated(session.createTime);
    return session;
  }

  getSession(id: string, call: CallOptions = {}): Promise<JulesSession> {
    return this.#call('GET', `/sessions/${encodeURIComponent(id)}`, undefined, sessionSchema, call);
  }

  async listSessions(
    page: { pageSize?: number; pageToken?: string } = {},
    call: CallOptions = {},
  ): Promise<Page<JulesSession>> {
    const body = await this.#call(
      'GET',
      `/sessions${query(page)}`,
      undefined,
      sessionsPageSchema,
      call,
    );
    return { items: body.sessions ?? [], nextPageToken: body.nextPageToken ?? undefined };
  }

  /** Approving twice is harmless (Jules answers 400 to a plan no longer awaiting approval), so it is retried. */
  async approvePlan(id: string, call: CallOptions = {}): Promise<void> {
    await this.#call(
      'POST',
      `/sessions/${encodeURIComponent(id)}:approvePlan`,
      {},
      undefined,
      call,
    );
  }

  /**
   * Archives a session (an undocumented method the official SDK uses): for a session bought by a
   * create whose reply was lost, found after another had taken its place.
   */
  async archiveSession(id: string, call: CallOptions = {}): Promise<void> {
    await this.#call('POST', `/sessions/${encodeURIComponent(id)}:archive`, {}, undefined, call);
  }

  /** Retried like a read: a message delivered twice says the same answer twice. */
  async sendMessage(id: string, prompt: string, call: CallOptions = {}): Promise<void> {
    await this.#call(
      'POST',
      `/sessions/${encodeURIComponent(id)}:sendMessage`,
      { prompt },
      undefined,
      call,
    );
  }

  /** One page of a session's activities; `notFoundRetries` tolerates the brief 404 after create. */
  async listActivities(
    id: string,
    page: { pageSize?: number; pageToken?: string } = {},
    options: CallOptions & { notFoundRetries?: number } = {},
  ): Promise<Page<JulesActivity>> {
    for (let attempt = 0; ; attempt++) {
      try {
        const body = await this.#call(
          'GET',
          `/sessions/${encodeURIComponent(id)}/activities${query(page)}`,
          undefined,
          activitiesPageSchema,
          options,
        );
        return { items: body.activities ?? [], nextPageToken: body.nextPageToken ?? undefined };
      } catch (error) {
        if (
          !(error instanceof JulesError) ||
          error.kind !== 'not-found' ||
          attempt >= (options.notFoundRetries ?? 3)
        )
          throw error;
        await this.#sleep(this.#backoff(attempt), options.signal);
      }
    }
  }

  async #call<T>(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    schema: ZodType<T> | undefined,
    call: CallOptions & { creates?: boolean },
  ): Promise<T> {
    const { signal } = call;
    const requestSignal = call.requestSignal ?? signal;
    const what = `${method} ${path}`;
    for (let attempt = 0; ; attempt++) {
      // Waits end at `signal` (and throw); a request goes out unless `requestSignal` stops it.
      if (requestSignal?.aborted) throw new AbortedError(requestSignal.reason);
      let status: number;
      let text: string;
      let retryAfter: string | null;
      let date: string | null | undefined;
      try {
        ({ status, text, retryAfter, date } = await request(
          this.#transport,
          `${this.#o.baseUrl}${path}`,
          { method, apiKey: this.#o.apiKey, body, timeoutMs: this.#o.requestTimeoutMs },
          requestSignal,
        ));
      } catch (error) {
        if (requestSignal?.aborted) throw new AbortedError(requestSignal.reason);
        const failure = this.#redact(`no answer (${describe(error)})`);
        if (call.creates === true) throw this.#unknownOutcome(what, failure, 'network');
        await this.#retry(failure, this.#backoff(attempt), call);
        continue;
      }
      // When Jules sent it, on Jules' clock: what its own times (a Retry-After date) are read against.
      const sentAt = this.#serverClock.observeDate(date) ?? this.#serverClock.now();
      if (status >= 200 && status < 300) {
        const parsed = readAnswer(text, schema, what);
        if (parsed.ok) {
          this.#outage.ok();
          return parsed.value;
        }
        // An answer that cannot be read says no more of what Jules did than no answer at all.
        if (call.creates === true) throw this.#unknownOutcome(what, parsed.failure, 'protocol');
        await this.#retry(parsed.failure, this.#backoff(attempt), call);
        continue;
      }
      const answer = readErrorAnswer(text, retryAfter, sentAt);
      if (status === 429 && call.creates === true) {
        const kind = quotaKind(answer);
        if (kind !== 'rate-limit') {
          // Jules answered, definitely: a plan limit, and no session was created.
          this.#outage.ok();
          throw this.#limitError(kind, answer, what);
        }
      }
      if (isRetryableStatus(status)) {
        // A rate limit, a request timeout or a server error: `Retry-After` is the least to wait.
        const wait = answer.retryAfterMs;
        const said = this.#redact(answer.message) || (status === 429 ? 'rate limited' : '');
        const failure = `${`${status} ${said}`.trim()}${wait === undefined ? '' : `, Retry-After ${Math.ceil(wait / 1000)} s`}`;
        if (wait !== undefined && wait > this.#o.maxRetryAfterMs) throw this.#tooLong(wait, status);
        // Only a 429 says for sure that nothing was done.
        if (call.creates === true && status !== 429)
          throw this.#unknownOutcome(what, failure, 'server', status, wait);
        // A 0 repeated must not turn into a tight loop.
        await this.#retry(failure, Math.max(wait ?? 0, this.#backoff(attempt)), call);
        continue;
      }
      this.#outage.ok();
      throw answerError(status, answer, what, [this.#o.apiKey]);
    }
  }

  /** Waits before another attempt, reporting the wait; stops once the outage tolerance is spent. */
  async #retry(failure: string, delayMs: number, call: CallOptions): Promise<void> {
    const { since, remainingMs } = this.#outage.failed(failure);
    if (remainingMs <= 0) throw this.#outage.unavailable();
    const delay = Math.min(delayMs, remainingMs);
    const end = call.onWait?.({
      service: 'jules',
      reason: sentences(
        `Jules is failing (${failure}) since ${new Date(since).toISOString()}; retrying until it answers, for at most ${duration(this.#o.outageMs)}`,
      ),
      until: new Date(this.#now() + delay),
    });
    try {
      await this.#sleep(delay, call.signal);
    } finally {
      end?.();
    }
  }

  /** `resumeAt` is when Jules asked to be called again (a `Retry-After`), if it did. */
  #unknownOutcome(
    what: string,
    failure: string,
    kind: 'network' | 'server' | 'protocol',
    status?: number,
    waitMs?: number,
  ): JulesError {
    this.#outage.failed(failure);
    return new JulesError(
      kind,
      sentences(`Jules ${what} failed: ${failure}`, 'Whether it was carried out is unknown'),
      {
        ...(status === undefined ? {} : { status }),
        ...(waitMs === undefined ? {} : { resumeAt: new Date(this.#now() + waitMs) }),
        isRetryable: true,
        outcomeUnknown: true,
      },
    );
  }

  #limitError(
    kind: 'concurrent-limit' | 'daily-limit',
    answer: ErrorAnswer,
    what: string,
  ): JulesError {
    const said = this.#redact(answer.message);
    const resumeAt =
      answer.retryAfterMs === undefined ? undefined : new Date(this.#now() + answer.retryAfterMs);
    return new JulesError(kind, sentences(`Jules ${what} failed with 429: ${said}`), {
      status: 429,
      isRetryable: true,
      ...(resumeAt === undefined ? {} : { resumeAt }),
    });
  }

  #tooLong(waitMs: number, status: number): JulesError {
    const resumeAt = new Date(this.#now() + waitMs);
    return new JulesError(
      'unavailable',
      sentences(
        `Jules asked MAKER to wait ${duration(waitMs)} (Retry-After ${Math.ceil(waitMs / 1000)} s), longer than the ${duration(this.#o.maxRetryAfterMs)} it waits`,
        `The state is saved; run maker resume after ${resumeAt.toISOString()}: it re-attaches every session`,
      ),
      { status, isRetryable: true, resumeAt },
    );
  }

  #backoff(attempt: number): number {
    const cap = Math.min(this.#o.maxDelayMs, this.#o.baseDelayMs * 2 ** attempt);
    return Math.floor((this.#o.random ?? Math.random)() * cap);
  }

  #sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return (this.#o.sleep ?? abortableSleep)(ms, signal);
  }

  #now(): number {
    return (this.#o.now ?? Date.now)();
  }

  #redact(text: string): string {
    return redactSecrets(text, [this.#o.apiKey]);
  }
}

function query(page: { pageSize?: number; pageToken?: string }): string {
  const params = new URLSearchParams();
  if (page.pageSize !== undefined) params.set('pageSize', String(page.pageSize));
  if (page.pageToken !== undefined) params.set('pageToken', page.pageToken);
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}
