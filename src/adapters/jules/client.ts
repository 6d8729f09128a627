import type { ZodType } from 'zod';
import { AbortedError, ApiCallError, redactSecrets } from '../../core/errors.js';
import { abortableSleep } from '../../core/sleep.js';
import {
  activitiesPageSchema,
  errorEnvelopeSchema,
  sessionSchema,
  sessionsPageSchema,
  sourceSchema,
  sourcesPageSchema,
  type JulesActivity,
  type JulesSession,
  type JulesSource,
} from './schemas.js';

export const JULES_BASE_URL = 'https://jules.googleapis.com/v1alpha';

/** Why a Jules call failed, for callers that branch on it. */
export type JulesErrorKind =
  'auth' | 'quota' | 'not-found' | 'bad-request' | 'server' | 'network' | 'protocol';

/** A failed Jules call. The key never appears in it. */
export class JulesError extends ApiCallError {
  override readonly name = 'JulesError';
  readonly kind: JulesErrorKind;
  /** The API's field violations, for a bad request. */
  readonly fieldViolations: readonly { readonly field: string; readonly description: string }[];

  constructor(
    kind: JulesErrorKind,
    message: string,
    options: {
      status?: number;
      fieldViolations?: JulesError['fieldViolations'];
      isRetryable?: boolean;
    } = {},
  ) {
    super('jules', message, {
      ...(options.status === undefined ? {} : { status: options.status }),
      ...(options.isRetryable === undefined ? {} : { isRetryable: options.isRetryable }),
    });
    this.kind = kind;
    this.fieldViolations = options.fieldViolations ?? [];
  }
}

export interface JulesClientOptions {
  readonly apiKey: string;
  readonly baseUrl?: string;
  readonly fetch?: typeof fetch;
  /** Attempts per call for 429 and 5xx (default 6). */
  readonly maxAttempts?: number;
  /** First backoff delay in ms (default 1000), doubled per attempt up to `maxDelayMs` (default 30,000), with full jitter. */
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly random?: () => number;
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

/**
 * The Jules REST API (v1alpha) over fetch, typed by zod (only the fields MAKER reads). Retries 429
 * and 5xx with exponential backoff and jitter, honouring `Retry-After`; a new session's activities
 * may 404 briefly, which `listActivities` tolerates. Every call takes an `AbortSignal`.
 */
export class JulesClient {
  readonly #o: Required<Omit<JulesClientOptions, 'fetch' | 'sleep' | 'random'>> &
    Pick<JulesClientOptions, 'fetch' | 'sleep' | 'random'>;

  constructor(options: JulesClientOptions) {
    this.#o = {
      baseUrl: JULES_BASE_URL,
      maxAttempts: 6,
      baseDelayMs: 1000,
      maxDelayMs: 30_000,
      ...options,
    };
  }

  async listSources(
    page: { pageSize?: number; pageToken?: string } = {},
    signal?: AbortSignal,
  ): Promise<Page<JulesSource>> {
    const body = await this.#call(
      'GET',
      `/sources${query(page)}`,
      undefined,
      sourcesPageSchema,
      signal,
    );
    return { items: body.sources ?? [], nextPageToken: body.nextPageToken ?? undefined };
  }

  getSource(name: string, signal?: AbortSignal): Promise<JulesSource> {
    return this.#call(
      'GET',
      `/${name.split('/').map(encodeURIComponent).join('/')}`,
      undefined,
      sourceSchema,
      signal,
    );
  }

  createSession(request: CreateSessionRequest, signal?: AbortSignal): Promise<JulesSession> {
    return this.#call(
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
      signal,
    );
  }

  getSession(id: string, signal?: AbortSignal): Promise<JulesSession> {
    return this.#call(
      'GET',
      `/sessions/${encodeURIComponent(id)}`,
      undefined,
      sessionSchema,
      signal,
    );
  }

  async listSessions(
    page: { pageSize?: number; pageToken?: string } = {},
    signal?: AbortSignal,
  ): Promise<Page<JulesSession>> {
    const body = await this.#call(
      'GET',
      `/sessions${query(page)}`,
      undefined,
      sessionsPageSchema,
      signal,
    );
    return { items: body.sessions ?? [], nextPageToken: body.nextPageToken ?? undefined };
  }

  async approvePlan(id: string, signal?: AbortSignal): Promise<void> {
    await this.#call(
      'POST',
      `/sessions/${encodeURIComponent(id)}:approvePlan`,
      {},
      undefined,
      signal,
    );
  }

  async sendMessage(id: string, prompt: string, signal?: AbortSignal): Promise<void> {
    await this.#call(
      'POST',
      `/sessions/${encodeURIComponent(id)}:sendMessage`,
      { prompt },
      undefined,
      signal,
    );
  }

  /** One page of a session's activities; `notFoundRetries` tolerates the brief 404 after create. */
  async listActivities(
    id: string,
    page: { pageSize?: number; pageToken?: string } = {},
    options: { signal?: AbortSignal; notFoundRetries?: number } = {},
  ): Promise<Page<JulesActivity>> {
    for (let attempt = 0; ; attempt++) {
      try {
        const body = await this.#call(
          'GET',
          `/sessions/${encodeURIComponent(id)}/activities${query(page)}`,
          undefined,
          activitiesPageSchema,
          options.signal,
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
    signal: AbortSignal | undefined,
  ): Promise<T> {
    const doFetch = this.#o.fetch ?? fetch;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw new AbortedError(signal.reason);
      let response: Response;
      try {
        response = await doFetch(`${this.#o.baseUrl}${path}`, {
          method,
          headers: {
            'X-Goog-Api-Key': this.#o.apiKey,
            ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          ...(signal === undefined ? {} : { signal }),
        });
      } catch (error) {
        if (signal?.aborted) throw new AbortedError(signal.reason);
        if (attempt >= this.#o.maxAttempts)
          throw new JulesError(
            'network',
            this.#redact(`Jules is unreachable at ${this.#o.baseUrl}: ${(error as Error).message}`),
            { isRetryable: true },
          );
        await this.#sleep(this.#backoff(attempt - 1), signal);
        continue;
      }
      const text = await response.text();
      if (response.ok) {
        if (schema === undefined) return undefined as T;
        let json: unknown;
        try {
          json = text === '' ? {} : JSON.parse(text);
        } catch {
          throw new JulesError(
            'protocol',
            `Jules answered ${method} ${path} with something that is not JSON.`,
          );
        }
        const parsed = schema.safeParse(json);
        if (!parsed.success)
          throw new JulesError(
            'protocol',
            `Jules answered ${method} ${path} with an unexpected shape: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`,
          );
        return parsed.data;
      }
      const retryable = response.status === 429 || response.status >= 500;
      if (retryable && attempt < this.#o.maxAttempts) {
        await this.#sleep(
          retryAfterMs(response.headers.get('retry-after')) ?? this.#backoff(attempt - 1),
          signal,
        );
        continue;
      }
      throw this.#error(response.status, text, method, path);
    }
  }

  #error(status: number, text: string, method: string, path: string): JulesError {
    const envelope = errorEnvelopeSchema.safeParse(safeJson(text));
    const apiMessage = envelope.success ? (envelope.data.error.message ?? '') : text.slice(0, 300);
    const violations = envelope.success
      ? (envelope.data.error.details ?? [])
          .flatMap((d) => d.fieldViolations ?? [])
          .map((v) => ({ field: v.field ?? '', description: this.#redact(v.description ?? '') }))
      : [];
    const message = this.#redact(`Jules ${method} ${path} failed with ${status}: ${apiMessage}`);
    if (status === 401 || status === 403)
      return new JulesError(
        'auth',
        `${message}. Check JULES_API_KEY (Jules settings page) and that the Jules GitHub app can see the repository.`,
        { status },
      );
    if (status === 429)
      return new JulesError(
        'quota',
        `${message}. The Jules plan's task limit or rate limit was hit; try again later or lower the concurrency.`,
        { status, isRetryable: true },
      );
    if (status === 404) return new JulesError('not-found', message, { status });
    if (status >= 500) return new JulesError('server', message, { status, isRetryable: true });
    return new JulesError('bad-request', message, { status, fieldViolations: violations });
  }

  #backoff(attempt: number): number {
    const cap = Math.min(this.#o.maxDelayMs, this.#o.baseDelayMs * 2 ** attempt);
    return Math.floor((this.#o.random ?? Math.random)() * cap);
  }

  #sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return (this.#o.sleep ?? abortableSleep)(ms, signal);
  }

  #redact(text: string): string {
    return redactSecrets(text, [this.#o.apiKey]);
  }
}

/** The candidate a finished session offers: its changeSet from `outputs`, else the last changeSet artifact. */
export function sessionPatch(
  session: JulesSession,
  activities: readonly JulesActivity[],
): { patch: string; baseCommitId: string | undefined; message: string | undefined } | undefined {
  const fromOutputs = session.outputs
    ?.map((o) => o.changeSet)
    .find((c) => c?.gitPatch?.unidiffPatch);
  const fromActivities = activities
    .flatMap((a) => a.artifacts ?? [])
    .map((a) => a.changeSet)
    .filter((c) => c?.gitPatch?.unidiffPatch)
    .at(-1);
  const changeSet = fromOutputs ?? fromActivities;
  const patch = changeSet?.gitPatch?.unidiffPatch;
  if (patch === undefined || patch === null || patch === '') return undefined;
  return {
    patch,
    baseCommitId: changeSet?.gitPatch?.baseCommitId ?? undefined,
    message: changeSet?.gitPatch?.suggestedCommitMessage ?? undefined,
  };
}

function query(page: { pageSize?: number; pageToken?: string }): string {
  const params = new URLSearchParams();
  if (page.pageSize !== undefined) params.set('pageSize', String(page.pageSize));
  if (page.pageToken !== undefined) params.set('pageToken', page.pageToken);
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
