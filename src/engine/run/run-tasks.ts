import { setMaxListeners } from 'node:events';
import type { Spawn } from '../compose/compose.js';
import { QuestionPendingError } from './engine-errors.js';

/**
 * The work of one run the engine tracks, and its halt: aborted when the run is cancelled or when
 * any subtree fails (a question waiting for a person under `--hitl defer` is not a failure:
 * independent subtrees go on). A halt starts no new paid work and waits for no person; requests
 * already sent finish (they hold the caller's signal), so what was bought is recorded.
 */
export class RunTasks {
  readonly #tasks = new Set<Promise<unknown>>();
  readonly #halt = new AbortController();
  #failure: { readonly error: unknown } | undefined;

  readonly #cancel: AbortSignal;
  readonly #onCancel = () => this.#halt.abort(this.#cancel.reason);

  constructor(cancel: AbortSignal) {
    this.#cancel = cancel;
    // Every waiting paid call and question listens to the halt: many listeners are expected.
    setMaxListeners(0, this.#halt.signal);
    if (cancel.aborted) this.#onCancel();
    else cancel.addEventListener('abort', this.#onCancel, { once: true });
  }

  /** Aborted at cancellation or at the first failure of any subtree. */
  get halt(): AbortSignal {
    return this.#halt.signal;
  }

  /** The first failure of a tracked subtree: the run's cause (what the halt stopped fails after it). */
  get failure(): { readonly error: unknown } | undefined {
    return this.#failure;
  }

  readonly spawn: Spawn = (work) => {
    this.#tasks.add(work);
    work.then(
      () => this.#tasks.delete(work),
      (error: unknown) => {
        this.#tasks.delete(work);
        if (error instanceof QuestionPendingError || this.#failure !== undefined) return;
        this.#failure = { error };
        this.#halt.abort(error);
      },
    );
    return work;
  };

  /** Waits until no tracked work is left; returns the failures of the work still tracked. */
  async settle(): Promise<unknown[]> {
    const errors: unknown[] = [];
    while (this.#tasks.size > 0) {
      const settled = await Promise.allSettled([...this.#tasks]);
      for (const s of settled) if (s.status === 'rejected') errors.push(s.reason);
    }
    return errors;
  }

  /** Stops listening to the caller's signal. */
  close(): void {
    this.#cancel.removeEventListener('abort', this.#onCancel);
  }
}
