import { AbortedError } from '../core/errors.js';

/** At most `limit` tasks at once; waiters are served in arrival order, a slot handed straight on. */
export class Semaphore {
  readonly #limit: number;
  #active = 0;
  readonly #queue: { grant: () => void }[] = [];

  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.#active < this.#limit) this.#active += 1;
    else {
      await new Promise<void>((resolve, reject) => {
        const entry = {
          grant: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        const onAbort = () => {
          const at = this.#queue.indexOf(entry);
          if (at >= 0) this.#queue.splice(at, 1);
          reject(new AbortedError(signal?.reason));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        this.#queue.push(entry);
      });
    }
    try {
      if (signal?.aborted) throw new AbortedError(signal.reason);
      return await work();
    } finally {
      const next = this.#queue.shift();
      if (next !== undefined) next.grant();
      else this.#active -= 1;
    }
  }
}
