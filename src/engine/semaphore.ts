import { AbortedError } from '../core/errors.js';

interface Waiter {
  readonly grant: () => void;
  readonly reject: (error: Error) => void;
  readonly signal: AbortSignal | undefined;
}

/**
 * At most `limit` tasks at once; waiters are served in arrival order, a slot handed straight on.
 * A waiter whose signal aborts is removed and rejected with {@link AbortedError}. However many
 * waiters share a signal, the semaphore adds one abort listener to it, and removes it when the
 * last of them leaves the queue.
 */
export class Semaphore {
  readonly #limit: number;
  #active = 0;
  /** Waiters in arrival order from `#head`; entries before it are served. */
  #queue: (Waiter | undefined)[] = [];
  #head = 0;
  /** Per signal: its listener and how many queued waiters hold it. */
  readonly #watched = new Map<AbortSignal, { waiting: number; readonly onAbort: () => void }>();

  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.#active < this.#limit) this.#active += 1;
    else await this.#wait(signal);
    try {
      if (signal?.aborted) throw new AbortedError(signal.reason);
      return await work();
    } finally {
      this.#release();
    }
  }

  #wait(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(new AbortedError(signal.reason));
    return new Promise<void>((grant, reject) => {
      this.#queue.push({ grant, reject, signal });
      if (signal !== undefined) this.#watch(signal);
    });
  }

  /** Hands the slot to the first waiter, or frees it. */
  #release(): void {
    const next = this.#dequeue();
    if (next === undefined) {
      this.#active -= 1;
      return;
    }
    if (next.signal !== undefined) this.#unwatch(next.signal);
    next.grant();
  }

  #dequeue(): Waiter | undefined {
    const queue = this.#queue;
    while (this.#head < queue.length) {
      const waiter = queue[this.#head];
      queue[this.#head++] = undefined;
      if (waiter !== undefined) {
        this.#compact();
        return waiter;
      }
    }
    this.#compact();
    return undefined;
  }

  /** Drops served entries once they are the larger part of the queue. */
  #compact(): void {
    if (this.#head > 32 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
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

  /** Removes and rejects, in arrival order, every waiter holding `signal`. */
  #abortWaiters(signal: AbortSignal): void {
    this.#watched.delete(signal);
    const queue = this.#queue;
    const aborted: Waiter[] = [];
    for (let i = this.#head; i < queue.length; i++) {
      const waiter = queue[i];
      if (waiter?.signal === signal) {
        queue[i] = undefined;
        aborted.push(waiter);
      }
    }
    for (const waiter of aborted) waiter.reject(new AbortedError(signal.reason));
  }
}
