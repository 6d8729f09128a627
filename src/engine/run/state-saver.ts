import type { StateFile, TreeNode } from '../../core/tree/schema.js';
import type { StateStore } from '../../ports/state-store.js';
import type { RunContext } from './run-context.js';

/**
 * How long the saver stays idle after a save, as a multiple of what saves take (a moving average):
 * 3 keeps saves under a quarter of the wall, however slow the disk's flush is.
 */
const IDLE_FACTOR = 3;
/** The longest a save waits for others to join it. */
const MAX_WINDOW_MS = 1000;

/**
 * The engine's saves of one state document: concurrent saves coalesce into one write of the
 * latest state, each naming what changed so the store can skip the rest, and changes that can wait
 * ride on the next save.
 *
 * Group commit: a save starts no sooner than {@link IDLE_FACTOR} times the average save's duration
 * after the previous one started, and every save asked for meanwhile joins it: one flush to disk
 * for all of them. Each caller still resolves only once its change is on disk (durability is
 * unchanged); on a slow disk a save waits a little longer and the run flushes far less often. A
 * store that costs nothing (in memory) is never waited for.
 */
export class StateSaver {
  readonly #store: StateStore<StateFile>;
  readonly #document: () => StateFile;
  #queued: Promise<void> | undefined;
  /** What the queued save covers: these nodes, or (undefined) anything. */
  #hints: Set<TreeNode> | undefined = new Set();
  #saving: Promise<void> = Promise.resolve();
  /** Nodes changed but not yet named to a save (see {@link soon}). */
  readonly #soon = new Set<TreeNode>();
  #soonPending = false;
  /** When the last save started (performance.now()), and what saves take on average. */
  #lastStart = Number.NEGATIVE_INFINITY;
  #averageMs = 0;

  /** `document` is called when a save starts: the state as it is then is written. */
  constructor(store: StateStore<StateFile>, document: () => StateFile) {
    this.#store = store;
    this.#document = document;
  }

  /**
   * Saves the state; resolves once it is on disk. `nodes`, when not empty, are the only nodes that
   * changed (besides run-level fields and new nodes); none: anything may have changed.
   */
  save(nodes: readonly TreeNode[] = []): Promise<void> {
    if (nodes.length === 0) this.#hints = undefined;
    else if (this.#hints !== undefined) for (const n of nodes) this.#hints.add(n);
    if (nodes.length === 0) this.#soon.clear();
    else for (const n of nodes) this.#soon.delete(n);
    if (this.#queued !== undefined) return this.#queued;
    const queued = this.#saving.then(async () => {
      const window = Math.min(MAX_WINDOW_MS, IDLE_FACTOR * this.#averageMs);
      const wait = this.#lastStart + window - performance.now();
      if (wait >= 1) await new Promise((resolve) => setTimeout(resolve, wait));
      this.#queued = undefined;
      const hints = this.#hints;
      this.#hints = new Set();
      const started = performance.now();
      this.#lastStart = started;
      try {
        await this.#store.save(this.#document(), hints);
      } finally {
        const took = performance.now() - started;
        this.#averageMs = this.#averageMs === 0 ? took : 0.8 * this.#averageMs + 0.2 * took;
      }
    });
    this.#queued = queued;
    this.#saving = queued.catch(() => undefined);
    return queued;
  }

  /**
   * Marks `nodes` changed without saving them yet: the next save that names one of them (or looks
   * at everything) carries its change, in one log line with whatever changed next. A node no save
   * has named by the time the event loop turns is saved then. That save's failure is not reported
   * here: the store then writes everything with its next save, whose caller sees any failure.
   */
  soon(nodes: readonly TreeNode[]): void {
    for (const n of nodes) this.#soon.add(n);
    if (this.#soonPending) return;
    this.#soonPending = true;
    setImmediate(() => {
      this.#soonPending = false;
      const left = [...this.#soon];
      this.#soon.clear();
      if (left.length > 0) this.save(left).catch(() => undefined);
    });
  }
}

/**
 * Records that `n` changed without waiting for it to be on disk, for a change the run makes again
 * identically after a crash, before any paid or external work that depends on it: the save the run
 * awaits next carries it, in the same log line (or one starts when the event loop turns). A
 * failure shows on the next save.
 */
export function saveSoon(ctx: Pick<RunContext, 'save' | 'saveSoon'>, n: TreeNode): void {
  if (ctx.saveSoon !== undefined) ctx.saveSoon(n);
  else ctx.save(n).catch(() => undefined);
}
