import PQueue, { type QueueAddOptions } from 'p-queue';
import { AbortedError } from './errors.js';
import { LaneQueue } from './lane-queue.js';

/** A slot taken with {@link Semaphore.acquire}: one piece of work runs in it, then it is freed. */
export interface HeldSlot {
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Frees the slot unused (or after its work: a no-op then). */
  release(): void;
}

interface Waiter {
  readonly reject: (error: Error) => void;
  readonly signal: AbortSignal | undefined;
  /** Its queue entry's id: taken out of line by it when the waiter's signal aborts. */
  readonly id: string;
  /** Rejected (its signal aborted) or granted: its queue entry, when it starts, only frees its place. */
  done: boolean;
}

/** Served before the others: work that finishes what was already paid for. */
const AHEAD = 1;

/**
 * At most `limit` tasks at once, queued by p-queue: waiters are served in arrival order, except that
 * waiters asking to go `ahead` are served before every other waiter (in their own arrival order):
 * work that finishes what was already paid for, such as reviewing a candidate, does not queue
 * behind new work.
 *
 * What this adds to p-queue: a slot can be taken before its work is built ({@link acquire}: a queued
 * caller holds one promise, not its work's closures), and cancellation that listens once per
 * signal. Every waiter of a run shares the run's signal, and p-queue would add a listener per queued
 * task (Node warns past 10). Here a signal gets one listener however many waiters hold it, removed
 * when the last of them leaves; when it aborts, its waiters are rejected with {@link AbortedError}
 * at once, and their queue entries leave the queue at once, each in O(1) ({@link LaneQueue}, p-queue's
 * queue here): a cancelled run's thousand waiters hold nothing and cost a thousand steps.
 */
export class Semaphore {
  readonly #queue: PQueue<LaneQueue, QueueAddOptions>;
  /** p-queue's queue, which it made of {@link LaneQueue}: aborted waiters leave it here. */
  readonly #lanes: LaneQueue;
  #ids = 0;
  #active = 0;
  /** Waiters neither granted nor rejected yet. */
  #waiting = 0;
  /** Per signal: its listener and the waiters holding it, queued now. */
  readonly #watched = new Map<
    AbortSignal,
    { readonly waiters: Set<Waiter>; readonly onAbort: () => void }
  >();

  constructor(limit: number) {
    // p-queue makes its queue in its constructor (and again only in `clear`, never called here).
    let made: LaneQueue | undefined;
    const keep = (queue: LaneQueue): void => void (made = queue);
    const Lanes = class extends LaneQueue {
      constructor() {
        super();
        keep(this);
      }
    };
    this.#queue = new PQueue({ concurrency: Math.max(1, limit), queueClass: Lanes });
    if (made === undefined) throw new Error('p-queue did not make its queue when it was made.');
    this.#lanes = made;
  }

  /** The entries in line now: the waiters, less those aborted (they leave at once). */
  get queued(): number {
    return this.#queue.size;
  }

  /** The slots taken now. */
  get active(): number {
    return this.#active;
  }

  /**
   * The callers waiting for a slot now. A freed slot reaches the next of them a few microtasks
   * later, so `active` may be 0 while some wait: idle is `active === 0 && waiting === 0`.
   */
  get waiting(): number {
    return this.#waiting;
  }

  /** Runs `work` in a slot, waiting in line for one; its work does not start if `signal` aborted. */
  async run<T>(
    work: () => Promise<T>,
    signal?: AbortSignal,
    options: { readonly ahead?: boolean } = {},
  ): Promise<T> {
    return (await this.acquire(signal, options)).run(work);
  }

  /**
   * Waits in line exactly as {@link run} does, and returns the slot instead of running work in it:
   * the caller builds what its work needs only once it can run. The slot is freed by `release`, or
   * when the work given to the slot's `run` ends; both are idempotent.
   */
  acquire(signal?: AbortSignal, options: { readonly ahead?: boolean } = {}): Promise<HeldSlot> {
    if (signal?.aborted) return Promise.reject(new AbortedError(signal.reason));
    return new Promise<HeldSlot>((resolve, reject) => {
      const id = `w${this.#ids++}`;
      const waiter: Waiter = { reject, signal, id, done: false };
      this.#waiting += 1;
      if (signal !== undefined) this.#watch(signal, waiter);
      // The task holds its place in the queue until the slot is freed.
      const place = (free: () => void): void => {
        if (signal !== undefined) this.#unwatch(signal, waiter);
        if (waiter.done) return free();
        waiter.done = true;
        this.#waiting -= 1;
        this.#active += 1;
        resolve(this.#held(signal, free));
      };
      this.#queue
        .add(() => new Promise<void>(place), {
          priority: options.ahead === true ? AHEAD : 0,
          id,
        })
        // An entry taken out of line never settles; nothing rejects one today, but were p-queue to,
        // the waiter fails rather than hangs.
        .catch((error: unknown) => {
          if (waiter.done) return;
          waiter.done = true;
          this.#waiting -= 1;
          if (signal !== undefined) this.#unwatch(signal, waiter);
          reject(error instanceof Error ? error : new Error(String(error)));
        });
    });
  }

  /** A slot just taken. Its work does not start if `signal` aborted meanwhile (as in {@link run}). */
  #held(signal: AbortSignal | undefined, free: () => void): HeldSlot {
    let held = true;
    const release = (): void => {
      if (!held) return;
      held = false;
      this.#active -= 1;
      free();
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

  #watch(signal: AbortSignal, waiter: Waiter): void {
    const watched = this.#watched.get(signal);
    if (watched !== undefined) {
      watched.waiters.add(waiter);
      return;
    }
    const waiters = new Set([waiter]);
    const onAbort = (): void => this.#abortWaiters(signal);
    this.#watched.set(signal, { waiters, onAbort });
    signal.addEventListener('abort', onAbort, { once: true });
  }

  #unwatch(signal: AbortSignal, waiter: Waiter): void {
    const watched = this.#watched.get(signal);
    if (watched === undefined || !watched.waiters.delete(waiter) || watched.waiters.size > 0)
      return;
    this.#watched.delete(signal);
    signal.removeEventListener('abort', watched.onAbort);
  }

  /** Rejects, in arrival order, every waiter holding `signal`, and takes their entries out of line. */
  #abortWaiters(signal: AbortSignal): void {
    const watched = this.#watched.get(signal);
    this.#watched.delete(signal);
    for (const waiter of watched?.waiters ?? []) {
      waiter.done = true;
      this.#waiting -= 1;
      waiter.reject(new AbortedError(signal.reason));
      this.#lanes.remove(waiter.id);
    }
  }
}
