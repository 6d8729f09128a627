import { duration } from './errors.js';

/** A complete answer: status, body text, `Retry-After` and `Date`. */
export interface JulesAnswer {
  readonly status: number;
  readonly text: string;
  readonly retryAfter: string | null;
  /** The answer's `Date` header: when it was sent, on the server's clock. */
  readonly date?: string | null;
}

/**
 * Sends one HTTP request and reads its whole answer; throws when none arrived (no connection, a
 * reset), after `timeoutMs` with no complete answer (an error saying "no answer in …"), or at
 * `signal` (the transport's abort error). The client's only I/O: `nodeTransport()` by default,
 * `fetchTransport(fetch)` for an injected `fetch`.
 */
export type JulesTransport = (
  url: string,
  init: {
    readonly method: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly body: string | undefined;
    readonly signal: AbortSignal | undefined;
    readonly timeoutMs: number;
  },
) => Promise<JulesAnswer>;

/** The error of a request with no complete answer after `timeoutMs`. */
export function noAnswerIn(timeoutMs: number): Error {
  return new Error(`no answer in ${duration(timeoutMs)}`);
}

/** A transport over a `fetch` function. */
export function fetchTransport(doFetch: typeof fetch): JulesTransport {
  return async (url, init) => {
    const controller = new AbortController();
    const { signal } = init;
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => controller.abort(noAnswerIn(init.timeoutMs)), init.timeoutMs);
    try {
      const response = await doFetch(url, {
        method: init.method,
        headers: init.headers,
        ...(init.body === undefined ? {} : { body: init.body }),
        signal: controller.signal,
      });
      const text = await response.text();
      return {
        status: response.status,
        text,
        retryAfter: response.headers.get('retry-after'),
        date: response.headers.get('date'),
      };
    } catch (error) {
      throw controller.signal.aborted && !(signal?.aborted ?? false)
        ? (controller.signal.reason as Error)
        : error;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  };
}

/**
 * One Jules request with a timeout: the status, body and `Retry-After` of a complete answer, or a
 * throw when none arrived (no connection, a reset, a timeout, `signal`).
 */
export function request(
  transport: JulesTransport,
  url: string,
  options: { method: string; apiKey: string; body: unknown; timeoutMs: number },
  signal: AbortSignal | undefined,
): Promise<JulesAnswer> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return transport(url, {
    method: options.method,
    headers:
      body === undefined
        ? { 'X-Goog-Api-Key': options.apiKey }
        : { 'X-Goog-Api-Key': options.apiKey, 'Content-Type': 'application/json' },
    body,
    signal,
    timeoutMs: options.timeoutMs,
  });
}

/** A transport failure in a few words: the cause's code when there is one (ECONNRESET, …). */
export function describe(error: unknown): string {
  const { cause, code: own } = error as { cause?: { code?: unknown }; code?: unknown };
  const code =
    typeof cause?.code === 'string' ? cause.code : typeof own === 'string' ? own : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return code === undefined || message.includes(code) ? message : `${message}: ${code}`;
}
