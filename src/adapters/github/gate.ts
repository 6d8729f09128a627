import { createHash } from 'node:crypto';
import { abortableSleep } from '../../core/sleep.js';

/**
 * GitHub's current limit for one token at one API, as its answers tell it, shared by every client
 * of that token in this process: every GitHub request passes it. Once GitHub said to wait (a
 * `retry-after`, or `x-ratelimit-remaining: 0` until `x-ratelimit-reset`), no request goes out
 * until then: a short wait is waited, and a longer one is answered in GitHub's place with the same
 * limit (nothing sent), so a background caller's failure is never followed by another caller's
 * request at once.
 */
export class GitHubGate {
  #closedUntil = 0;
  #primary = false;

  /** Reads a GitHub answer's limit headers (`unitMs`: ms per second of `retry-after`). */
  observe(status: number, headers: Headers, now: number, unitMs: number): void {
    const retryAfter = Number(headers.get('retry-after') ?? Number.NaN);
    const remaining = headers.get('x-ratelimit-remaining');
    const reset = Number(headers.get('x-ratelimit-reset') ?? Number.NaN);
    if ((status === 403 || status === 429) && Number.isFinite(retryAfter) && retryAfter > 0)
      this.#close(now + retryAfter * unitMs, false);
    else if (remaining === '0' && Number.isFinite(reset) && reset > 0)
      this.#close(reset * 1000, true);
  }

  /**
   * Before a request: undefined to send it (after waiting out a closed gate of at most
   * `maxWaitMs`), or the answer GitHub would give now, for the caller to take as GitHub's.
   */
  async pass(
    now: () => number,
    maxWaitMs: number,
    unitMs: number,
    signal?: AbortSignal | null,
    onWait?: (wait: { primary: boolean; until: Date }) => void,
  ): Promise<Response | undefined> {
    const waitMs = this.#closedUntil - now();
    if (waitMs <= 0) return undefined;
    if (waitMs <= maxWaitMs) {
      onWait?.({ primary: this.#primary, until: new Date(this.#closedUntil) });
      await abortableSleep(waitMs, signal ?? undefined);
      return undefined;
    }
    const seconds = Math.ceil(waitMs / unitMs);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.#primary) {
      headers['x-ratelimit-remaining'] = '0';
      headers['x-ratelimit-reset'] = String(Math.ceil(this.#closedUntil / 1000));
    } else headers['retry-after'] = String(seconds);
    const message = this.#primary
      ? 'API rate limit exceeded (maker holds this request until the limit resets: not sent)'
      : 'You have exceeded a secondary rate limit (maker holds this request until GitHub said: not sent)';
    return new Response(JSON.stringify({ message }), { status: 403, headers });
  }

  #close(until: number, primary: boolean): void {
    if (until <= this.#closedUntil) return;
    this.#closedUntil = until;
    this.#primary = primary;
  }
}

const gates = new Map<string, GitHubGate>();

/** The process's gate for `token` at `baseUrl` (the token itself is not kept: a digest of it). */
export function gateFor(baseUrl: string, token: string): GitHubGate {
  const key = createHash('sha256').update(`${baseUrl}\0${token}`).digest('hex');
  let gate = gates.get(key);
  if (gate === undefined) {
    gate = new GitHubGate();
    gates.set(key, gate);
  }
  return gate;
}
