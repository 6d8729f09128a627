/**
 * When a worker looks at its sessions. A new session is first looked at after `initial` ms, then
 * each wait grows by `factor` up to `max`. Once a session this worker created has been seen
 * finished, the shortest such time (from its create's answer to the look that saw it finished)
 * becomes the first wait of the sessions created after: the sessions of one run are
 * candidates for subtasks of one size, none of which has finished sooner so far, so earlier looks
 * would most likely find them still working (each look is a request against the account's rate
 * limits). After that first look, waits go on from `max(initial, (factor − 1) × first)`, so a session
 * that takes longer is seen at most about `(factor − 1)` of its time late, as with the plain schedule.
 */
export class PollSchedule {
  readonly #initial: number;
  readonly #factor: number;
  readonly #max: number;
  #fastest: number | undefined;

  constructor(options: {
    readonly initial: number;
    readonly factor: number;
    readonly max: number;
  }) {
    this.#initial = options.initial;
    this.#factor = options.factor;
    this.#max = options.max;
  }

  /** The waits before each look at a session just created, as an iterator (endless). */
  *waits(): Generator<number, never, void> {
    const learned = this.#fastest;
    let delay = this.#initial;
    if (learned !== undefined && learned > delay) {
      yield learned;
      delay = Math.min(
        Math.max(this.#initial, Math.round(learned * (this.#factor - 1))),
        this.#max,
      );
    }
    for (;;) {
      yield delay;
      delay = Math.min(Math.round(delay * this.#factor), this.#max);
    }
  }

  /** A session this worker created was seen finished by a look sent `elapsedMs` after its create was answered. */
  finished(elapsedMs: number): void {
    if (this.#fastest === undefined || elapsedMs < this.#fastest) this.#fastest = elapsedMs;
  }
}

/** A session that passed through one of these waited on someone: it does not teach the schedule. */
export const WAITING_ON_SOMEONE: ReadonlySet<string> = new Set([
  'AWAITING_PLAN_APPROVAL',
  'AWAITING_USER_FEEDBACK',
  'PAUSED',
]);
