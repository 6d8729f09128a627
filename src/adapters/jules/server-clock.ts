/**
 * Jules' clock as its own answers tell it, never assumed to be this machine's: the offset from the
 * local clock, measured from each answer's `Date` header (whole seconds: taken at the middle of its
 * second) and, more finely, from the `createTime` of a session just created (a moment before its
 * answer left). The latest measure wins. Times Jules states (a `Retry-After` date, a `createTime`)
 * are compared with this, not with the local clock.
 */
export class ServerClock {
  readonly #now: () => number;
  #offsetMs: number | undefined;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** Jules' clock minus the local one (ms), once measured. */
  get offsetMs(): number | undefined {
    return this.#offsetMs;
  }

  /** An answer's `Date` header (an HTTP date), read at this moment. */
  observeDate(header: string | null | undefined): number | undefined {
    const at = header == null ? Number.NaN : Date.parse(header);
    if (Number.isNaN(at)) return undefined;
    this.#offsetMs = at + 500 - this.#now();
    return at + 500;
  }

  /** The `createTime` of a session whose create was answered at this moment. */
  observeCreated(createTime: string | null | undefined): void {
    const at = createTime == null ? Number.NaN : Date.parse(createTime);
    if (!Number.isNaN(at)) this.#offsetMs = at - this.#now();
  }

  /** Now on Jules' clock (the local clock until a measure says otherwise). */
  now(): number {
    return this.#now() + (this.#offsetMs ?? 0);
  }
}
