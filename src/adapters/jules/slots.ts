import { setMaxListeners } from 'node:events';
import { AbortedError } from '../../core/errors.js';

/** Every waiting slot listens to it: many listeners are expected. */
function haltController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

/**
 * A worker's candidate slots: at most `limit` at once (waiters served in order), and a halt that
 * stops every slot of one run at once. A halt belongs to the run's signal: a call under another
 * signal (a resume) starts afresh; calls without a signal share one halt, cleared once idle.
 */
export class Slots {
  readonly #limit: number;
  #active = 0;
  readonly #waiting: (() => void)[] = [];
  #halted: { readonly error: Error; readonly signal: AbortSignal | undefined } | undefined;
  #halt = haltController();

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Why the slots stopped, if they did. */
  get halted(): Error | undefined {
    return this.#halted?.error;
  }

  async acquire(signal?: AbortSignal): Promise<void> {
    if (this.#active < this.#limit) {
      this.#active += 1;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const at = this.#waiting.indexOf(grant);
        if (at >= 0) this.#waiting.splice(at, 1);
        reject(new AbortedError(signal?.reason));
      };
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.#waiting.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next !== undefined) next();
    else this.#active -= 1;
    if (this.#active === 0 && this.#halted !== undefined && this.#halted.signal === undefined) {
      this.#halted = undefined;
      this.#halt = haltController();
    }
  }

  /** Stops every slot of the run `signal` belongs to (the first reason wins). */
  halt(error: Error, signal: AbortSignal | undefined): void {
    if (this.#halted !== undefined) return;
    this.#halted = { error, signal };
    this.#halt.abort(error);
  }

  /** Throws the halt of this run; a call under another run's signal clears an old halt. */
  throwIfHalted(signal: AbortSignal | undefined): void {
    const halted = this.#halted;
    if (halted === undefined) return;
    if (halted.signal === signal) throw halted.error;
    if (signal !== undefined) {
      this.#halted = undefined;
      this.#halt = haltController();
    }
  }

  /** The run's signal joined with the halt, for a slot's waits. */
  haltable(signal: AbortSignal | undefined): AbortSignal {
    if (signal === undefined) return this.#halt.signal;
    // AbortSignal.any is Node ≥ 20.3; before it, a halt is seen at the next poll instead.
    return typeof AbortSignal.any === 'function'
      ? AbortSignal.any([signal, this.#halt.signal])
      : signal;
  }
}
