import { duration } from './errors.js';

/** A complete answer: status, body text and `Retry-After`. */
export interface JulesAnswer {
  readonly status: number;
  readonly text: string;
  readonly retryAfter: string | null;
}

/**
 * Sends one HTTP request and reads its whole answer; throws when none arrived (no connection, a
 * reset, `signal`). The client's only I/O: `nodeTransport()` by default, `fetchTransport(fetch)`
 * for an injected `fetch`.
 */
export type JulesTransport = (
  url: string,
  init: {
    readonly method: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly body: string | undefined;
    readonly signal: AbortSignal;
  },
) => Promise<JulesAnswer>;

/** A transport over a `fetch` function. */
export function fetchTransport(doFetch: typeof fetch): JulesTransport {
  return async (url, init) => {
    const response = await doFetch(url, {
      method: init.method,
      headers: init.headers,
      ...(init.body === undefined ? {} : { body: init.body }),
      signal: init.signal,
    });
    const text = await response.text();
    return { status: response.status, text, retryAfter: response.headers.get('retry-after') };
  };
}

/**
 * One Jules request with a timeout: the status, body and `Retry-After` of a complete answer, or a
 * throw when none arrived (no connection, a reset, a timeout, `signal`).
 */
export async function request(
  transport: JulesTransport,
  url: string,
  options: { method: string; apiKey: string; body: unknown; timeoutMs: number },
  signal: AbortSignal | undefined,
): Promise<JulesAnswer> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(
    () => controller.abort(new Error(`no answer in ${duration(options.timeoutMs)}`)),
    options.timeoutMs,
  );
  try {
    return await transport(url, {
      method: options.method,
      headers: {
        'X-Goog-Api-Key': options.apiKey,
        ...(options.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: controller.signal,
    });
  } catch (error) {
    throw controller.signal.aborted && !(signal?.aborted ?? false)
      ? (controller.signal.reason as Error)
      : error;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/** A transport failure in a few words: the cause's code when there is one (ECONNRESET, …). */
export function describe(error: unknown): string {
  const { cause, code: own } = error as { cause?: { code?: unknown }; code?: unknown };
  const code =
    typeof cause?.code === 'string' ? cause.code : typeof own === 'string' ? own : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return code === undefined || message.includes(code) ? message : `${message}: ${code}`;
}
