import { refuseSecond } from './start-checks.js';

/**
 * The runs a server's tool calls are setting up now (`maker_start`, `maker_resume`), one per
 * repository: a second call there is refused, unless it resumes the same run, which shares the
 * first one's outcome (two answers at once each resume the run they answer).
 */
export class SetUps {
  readonly #byDir = new Map<
    string,
    { call: string; runId: string | undefined; done: Promise<unknown> }
  >();

  /** Whether a call sets a run up in `dir` now. */
  has(dir: string): boolean {
    return this.#byDir.has(dir);
  }

  /**
   * `call` setting a run up in `dir` (resuming `runId`, when it is known): refused while a run of
   * `running` is driven there, or another call sets one up; claimed before anything awaits, so two
   * calls at once cannot both pass.
   */
  claim<T>(
    dir: string,
    call: string,
    runId: string | undefined,
    running: Iterable<[id: string, dir: string | undefined]>,
    setUp: () => Promise<T>,
  ): Promise<T> {
    refuseSecond(dir, running, this.#byDir.get(dir)?.call);
    const done = (async () => {
      try {
        return await setUp();
      } finally {
        this.#byDir.delete(dir);
      }
    })();
    this.#byDir.set(dir, { call, runId, done });
    return done;
  }

  /** The end of the resume of `runId` under way now (whatever its outcome); undefined when none is. */
  resuming(runId: string): Promise<unknown> | undefined {
    return [...this.#byDir.values()].find((u) => u.runId === runId)?.done;
  }
}
