import { AbortedError } from '../../core/errors.js';
import type { CallOptions, JulesClient } from './client.js';
import { JulesError } from './errors.js';

/** What a look at the sessions a worker stopped following found. */
export interface LeftSessions {
  /** Still running at Jules (or not seen otherwise), within their bound: they count as the run's. */
  readonly counted: readonly string[];
  /** Still running at Jules past their bound: they no longer hold a wait, but may hold a slot. */
  readonly expired: readonly string[];
  /** Seen ended (or gone) by this look: a slot is free. */
  readonly ended: number;
}

const ENDED = new Set(['COMPLETED', 'FAILED']);

/**
 * A worker's sessions that may hold one of Jules' concurrent slots. Those it follows, counted from
 * the moment their id is known (before it is recorded: a slow state save must not make them look
 * like someone else's); and those it stopped following before it saw them end (a session past its
 * deadline, a question discarded, a slot cancelled), which Jules still runs. A session left so is
 * the run's until a look sees it ended, or for `leftForMs` after it was left: one that never ends
 * (waiting for an answer nobody sends) must not hold a wait forever.
 */
export class RunningSessions {
  readonly #ids = new Set<string>();
  /** Sessions left while Jules may still run them, and when each was left. */
  readonly #left = new Map<string, number>();
  readonly #now: () => number;
  readonly #leftForMs: number;
  #waiters: (() => void)[] = [];

  constructor(options: { readonly now: () => number; readonly leftForMs: number }) {
    this.#now = options.now;
    this.#leftForMs = options.leftForMs;
  }

  /** The sessions followed now. */
  get size(): number {
    return this.#ids.size;
  }

  add(id: string): void {
    this.#left.delete(id);
    this.#ids.add(id);
  }

  /**
   * The slot stopped following the session: it was seen ended, or (`stillRunning`) it was not, and
   * is kept as left. Wakes every waiter.
   */
  end(id: string, stillRunning = false): void {
    if (!this.#ids.delete(id)) return;
    if (stillRunning) this.#left.set(id, this.#now());
    this.#wake();
  }

  /**
   * Looks at every session left while Jules may still run it: those seen ended (or gone) are
   * dropped, waking every waiter. A look that fails leaves the session as it was.
   */
  async left(client: JulesClient, call: CallOptions): Promise<LeftSessions> {
    const counted: string[] = [];
    const expired: string[] = [];
    let ended = 0;
    for (const [id, at] of [...this.#left]) {
      const state = await client.getSession(id, call).then(
        (session) => session.state ?? '',
        (error: unknown) => {
          if (error instanceof AbortedError || !(error instanceof JulesError)) throw error;
          return error.kind === 'not-found' ? 'COMPLETED' : '';
        },
      );
      if (!this.#left.has(id)) continue; // followed again meanwhile
      if (ENDED.has(state)) {
        this.#left.delete(id);
        ended++;
        this.#wake();
      } else (this.#now() - at < this.#leftForMs ? counted : expired).push(id);
    }
    return { counted, expired, ended };
  }

  /** Resolves when one of the sessions ends, or after `ms`, whichever is first. */
  async oneEnds(
    ms: number,
    sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const timer = new AbortController();
    const onAbort = () => timer.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    let wake: () => void = () => undefined;
    const ended = new Promise<void>((resolve) => {
      wake = resolve;
      this.#waiters.push(resolve);
    });
    try {
      await Promise.race([ended, sleep(ms, timer.signal)]);
    } catch (error) {
      if (!(error instanceof AbortedError) || signal?.aborted === true) throw error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.#waiters = this.#waiters.filter((w) => w !== wake);
      if (!timer.signal.aborted) timer.abort();
    }
    if (signal?.aborted === true) throw new AbortedError(signal.reason);
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}
