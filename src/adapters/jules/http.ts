import { duration } from './errors.js';

/**
 * One Jules request with a timeout: the status, body and `Retry-After` of a complete answer, or a
 * throw when none arrived (no connection, a reset, a timeout, `signal`).
 */
export async function request(
  doFetch: typeof fetch,
  url: string,
  options: { method: string; apiKey: string; body: unknown; timeoutMs: number },
  signal: AbortSignal | undefined,
): Promise<{ status: number; text: string; retryAfter: string | null }> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(
    () => controller.abort(new Error(`no answer in ${duration(options.timeoutMs)}`)),
    options.timeoutMs,
  );
  try {
    const response = await doFetch(url, {
      method: options.method,
      headers: {
        'X-Goog-Api-Key': options.apiKey,
        ...(options.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      signal: controller.signal,
    });
    const text = await response.text();
    return { status: response.status, text, retryAfter: response.headers.get('retry-after') };
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
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return code === undefined ? message : `${message}: ${code}`;
}
