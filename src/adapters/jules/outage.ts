import { sentences } from '../../core/text.js';
import { JulesError, duration } from './errors.js';

/**
 * How long Jules has failed every call: a failure streak shared by every call of one client, ended
 * by any answer Jules gives on its own account (a success, or a definite 4xx). Past the tolerance
 * the run stops: an outage that long is not worth waiting through in silence.
 */
export class OutageClock {
  readonly toleranceMs: number;
  readonly #now: () => number;
  #since: number | undefined;
  #last = '';

  constructor(toleranceMs: number, now: () => number) {
    this.toleranceMs = toleranceMs;
    this.#now = now;
  }

  /** Jules answered: the streak, if any, is over. */
  ok(): void {
    this.#since = undefined;
  }

  /** Counts a failure; returns how long the streak may still last (0: stop now). */
  failed(what: string): { since: number; deadline: number; remainingMs: number } {
    const now = this.#now();
    this.#since ??= now;
    this.#last = what;
    const deadline = this.#since + this.toleranceMs;
    return { since: this.#since, deadline, remainingMs: Math.max(0, deadline - now) };
  }

  /** The run-stopping error once the tolerance is spent. */
  unavailable(): JulesError {
    const now = this.#now();
    const since = this.#since ?? now;
    return new JulesError(
      'unavailable',
      sentences(
        `Jules is unavailable: every call has failed for ${duration(now - since)}, since ${new Date(since).toISOString()} (the outage limit is ${duration(this.toleranceMs)})`,
        `Last error: ${this.#last}`,
        'The state is saved; run maker resume when Jules is back: it re-attaches every session, and nothing is bought twice',
      ),
      { isRetryable: true },
    );
  }
}
