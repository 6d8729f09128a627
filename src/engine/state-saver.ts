import type { StateFile, TreeNode } from '../core/tree/schema.js';
import type { StateStore } from '../ports/state-store.js';

/**
 * The engine's saves of one state document: concurrent saves coalesce into one write of the
 * latest state, each naming what changed so the store can skip the rest, and changes that can wait
 * ride on the next save.
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
      this.#queued = undefined;
      const hints = this.#hints;
      this.#hints = new Set();
      await this.#store.save(this.#document(), hints);
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
