/** Publishes branches for Jules: once per (branch, commit), and those asked for at one moment in one push. */
export class BranchPublisher {
  readonly #one: (branch: string, commit: string) => Promise<void>;
  readonly #many:
    ((refs: readonly { branch: string; commit: string }[]) => Promise<void>) | undefined;
  readonly #published = new Map<string, Promise<void>>();
  /** Publications waiting for the current batch to be pushed. */
  #batch: { branch: string; commit: string; done: Deferred }[] = [];

  constructor(
    one: (branch: string, commit: string) => Promise<void>,
    many?: (refs: readonly { branch: string; commit: string }[]) => Promise<void>,
  ) {
    this.#one = one;
    this.#many = many;
  }

  publish(branch: string, commit: string): Promise<void> {
    const key = `${branch}@${commit}`;
    let pending = this.#published.get(key);
    if (pending === undefined) {
      pending =
        this.#many === undefined ? this.#one(branch, commit) : this.#enqueue(branch, commit);
      this.#published.set(key, pending);
      pending.catch(() => this.#published.delete(key));
    }
    return pending;
  }

  /** Joins the batch of this moment; the first to join pushes the batch once the moment has passed. */
  #enqueue(branch: string, commit: string): Promise<void> {
    const done = deferred();
    this.#batch.push({ branch, commit, done });
    if (this.#batch.length === 1)
      setImmediate(() => {
        const batch = this.#batch;
        this.#batch = [];
        void this.#pushBatch(batch);
      });
    return done.promise;
  }

  async #pushBatch(
    batch: readonly { branch: string; commit: string; done: Deferred }[],
  ): Promise<void> {
    try {
      if (batch.length === 1) throw new Error('one branch: pushed on its own');
      await this.#many?.(batch.map(({ branch, commit }) => ({ branch, commit })));
      for (const item of batch) item.done.resolve();
    } catch {
      // Alone, or after a batch failed: each branch on its own, so each error reaches its leaf.
      await Promise.all(
        batch.map(({ branch, commit, done }) =>
          this.#one(branch, commit).then(done.resolve, done.reject),
        ),
      );
    }
  }
}

interface Deferred {
  readonly promise: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** A promise with its settle functions (Node 20 has no `Promise.withResolvers`). */
function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}
