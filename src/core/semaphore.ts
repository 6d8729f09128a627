import { AbortedError } from './errors.js';

interface Waiter {
  readonly grant: () => void;
  readonly reject: (error: Error) => void;
  readonly signal: AbortSignal | undefined;
}

/** A slot taken with {@link Semaphore.acquire}: one piece of work runs in it, then it is freed. */
export interface HeldSlot {
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Frees the slot unused (or after its work: a no-op then). */
  release(): void;
}

/**
 * At most `limit` tasks at once; waiters are served in arrival order, a slot handed straight on,
 * except that waiters asking to go `ahead` are served before every other waiter (in their own
 * arrival order): work that finishes what was already paid for, such as reviewing a candidate,
 * does not queue behind new work. A waiter whose signal aborts is removed and rejected with
 * {@link AbortedError}. However many waiters share a signal, the semaphore adds one abort
 * listener to it, and removes it when the last of them leaves the queue.
 */
export class Semaphore {
  readonly #limit: number;
  #active = 0;
  /** Waiters going ahead, then the others; each in arrival order. */
  readonly #ahead = new Lane();
  readonly #queue = new Lane();
  /** Per signal: its listener and how many queued waiters hold it. */
  readonly #watched = new Map<AbortSignal, { waiting: number; readonly onAbort: () => void }>();

  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  /** The slots taken now (a slot handed straight on to a waiter stays taken). */
  get active(): number {
    return this.#active;
  }

  async run<T>(
    work: () => Promise<T>,
    signal?: AbortSignal,
    options: { readonly ahead?: boolean } = {},
  ): Promise<T> {
    if (this.#active < this.#limit) this.#active += 1;
    else await this.#wait(signal, options.ahead === true ? this.#ahead : this.#queue);
    try {
      if (signal?.aborted) throw new AbortedError(signal.reason);
      return await work();
    } finally {
      this.#release();
    }
  }

  /**
   * Waits in line exactly as {@link run} does, and returns the slot instead of running work in it:
   * the caller builds what its work needs only once it can run (a queued caller holds one promise,
   * not its work's closures and frames). The slot is freed by `release`, or when the work given to
   * the slot's `run` ends; both are idempotent.
   */
  acquire(signal?: AbortSignal, options: { readonly ahead?: boolean } = {}): Promise<HeldSlot> {
    if (signal?.aborted) return Promise.reject(new AbortedError(signal.reason));
    if (this.#active < this.#limit) {
      this.#active += 1;
      return Promise.resolve(this.#held(signal));
    }
    // A waiter is its queue entry and one promise: no frame, no continuation of its own.
    return new Promise<HeldSlot>((resolve, reject) => {
      const lane = options.ahead === true ? this.#ahead : this.#queue;
      lane.push({ grant: () => resolve(this.#held(signal)), reject, signal });
      if (signal !== undefined) this.#watch(signal);
    });
  }

  /** A slot just taken. Its work does not start if `signal` aborted meanwhile (as in {@link run}). */
  #held(signal: AbortSignal | undefined): HeldSlot {
    let held = true;
    const release = (): void => {
      if (!held) return;
      held = false;
      this.#release();
    };
    return {
      release,
      run: async (work) => {
        if (!held) throw new Error('This paid slot was released already.');
        try {
          if (signal?.aborted) throw new AbortedError(signal.reason);
          return await work();
        } finally {
          release();
        }
      },
    };
  }

  #wait(signal: AbortSignal | undefined, lane: Lane): Promise<void> {
    if (signal?.aborted) return Promise.reject(new AbortedError(signal.reason));
    return new Promise<void>((grant, reject) => {
      lane.push({ grant, reject, signal });
      if (signal !== undefined) this.#watch(signal);
    });
  }

  /** Hands the slot to the first waiter, or frees it. */
  #release(): void {
    const next = this.#ahead.shift() ?? this.#queue.shift();
    if (next === undefined) {
      this.#active -= 1;
      return;
    }
    if (next.signal !== undefined) this.#unwatch(next.signal);
    next.grant();
  }

  #watch(signal: AbortSignal): void {
    const watched = this.#watched.get(signal);
    if (watched !== undefined) {
      watched.waiting += 1;
      return;
    }
    const onAbort = (): void => this.#abortWaiters(signal);
    this.#watched.set(signal, { waiting: 1, onAbort });
    signal.addEventListener('abort', onAbort, { once: true });
  }

  #unwatch(signal: AbortSignal): void {
    const watched = this.#watched.get(signal);
    if (watched === undefined) return;
    watched.waiting -= 1;
    if (watched.waiting > 0) return;
    this.#watched.delete(signal);
    signal.removeEventListener('abort', watched.onAbort);
  }

  /** Removes and rejects, in arrival order (those going ahead first), every waiter holding `signal`. */
  #abortWaiters(signal: AbortSignal): void {
    this.#watched.delete(signal);
    const aborted = [...this.#ahead.remove(signal), ...this.#queue.remove(signal)];
    for (const waiter of aborted) waiter.reject(new AbortedError(signal.reason));
  }
}

/** Waiters in arrival order from `#head`; entries before it are served, removed ones are holes. */
class Lane {
  #waiters: (Waiter | undefined)[] = [];
  #head = 0;

  push(waiter: Waiter): void {
    this.#waiters.push(waiter);
  }

  /** The first waiter still queued, taken off the lane; undefined when there is none. */
  shift(): Waiter | undefined {
    const waiters = this.#waiters;
    while (this.#head < waiters.length) {
      const waiter = waiters[this.#head];
      waiters[this.#head++] = undefined;
      if (waiter !== undefined) {
        this.#compact();
        return waiter;
      }
    }
    this.#compact();
    return undefined;
  }

  /** Takes every waiter holding `signal` off the lane; returns them in arrival order. */
  remove(signal: AbortSignal): Waiter[] {
    const waiters = this.#waiters;
    const removed: Waiter[] = [];
    for (let i = this.#head; i < waiters.length; i++) {
      const waiter = waiters[i];
      if (waiter?.signal === signal) {
        waiters[i] = undefined;
        removed.push(waiter);
      }
    }
    return removed;
  }

  /** Drops served entries once they are the larger part of the lane. */
  #compact(): void {
    if (this.#head > 32 && this.#head * 2 > this.#waiters.length) {
      this.#waiters = this.#waiters.slice(this.#head);
      this.#head = 0;
    }
  }
}
