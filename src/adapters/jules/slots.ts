import { setMaxListeners } from 'node:events';
import { Semaphore } from '../../core/semaphore.js';

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
  readonly #slots: Semaphore;
  #halted: { readonly error: Error; readonly signal: AbortSignal | undefined } | undefined;
  #halt = haltController();

  constructor(limit: number) {
    this.#slots = new Semaphore(limit);
  }

  /** Why the slots stopped, if they did. */
  get halted(): Error | undefined {
    return this.#halted?.error;
  }

  /**
   * Takes a slot, waiting in arrival order (`AbortedError` when `signal` aborts first); resolves
   * with what frees it.
   */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    const held = await this.#slots.acquire(signal);
    return () => {
      held.release();
      if (
        this.#slots.active === 0 &&
        this.#slots.waiting === 0 &&
        this.#halted !== undefined &&
        this.#halted.signal === undefined
      ) {
        this.#halted = undefined;
        this.#halt = haltController();
      }
    };
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
