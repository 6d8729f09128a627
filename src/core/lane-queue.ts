import type { Queue, QueueAddOptions } from 'p-queue';

/** What p-queue queues: a task that starts its work. */
type RunFunction = () => Promise<unknown>;

interface Entry {
  readonly id: string;
  readonly priority: number;
  /** Undefined once removed: skipped when its turn comes, its work already let go. */
  run: RunFunction | undefined;
}

/** Removed entries tolerated beyond the live ones before a lane is swept (amortised O(1)). */
const SWEEP_SLACK = 1024;

/**
 * p-queue's queue for the {@link Semaphore}: one first-in-first-out lane per priority, the higher
 * served first. Unlike p-queue's own (a sorted array: removing an entry scans it), removing an
 * entry is O(1): it is marked and let go of at once, and skipped when its turn comes. A run
 * cancelled with ten thousand waiters takes them out of line in ten thousand steps, not fifty
 * million.
 */
export class LaneQueue implements Queue<RunFunction, QueueAddOptions> {
  /** Lanes by priority, highest first; each with the index of its next entry. */
  readonly #lanes: { readonly priority: number; entries: Entry[]; head: number }[] = [];
  readonly #byId = new Map<string, Entry>();
  #removed = 0;
  /** Ids for entries enqueued without one (p-queue always gives one). */
  #unnamed = 0;

  get size(): number {
    return this.#byId.size;
  }

  enqueue(run: RunFunction, options: Partial<QueueAddOptions> = {}): void {
    const { priority = 0, id = `unnamed:${this.#unnamed++}` } = options;
    const entry: Entry = { id, priority, run };
    this.#lane(priority).entries.push(entry);
    this.#byId.set(id, entry);
  }

  dequeue(): RunFunction | undefined {
    for (const lane of this.#lanes) {
      while (lane.head < lane.entries.length) {
        const entry = lane.entries[lane.head] as Entry;
        lane.head += 1;
        if (entry.run === undefined) {
          this.#removed -= 1;
          continue;
        }
        this.#byId.delete(entry.id);
        if (lane.head === lane.entries.length) {
          lane.entries = [];
          lane.head = 0;
        }
        return entry.run;
      }
      lane.entries = [];
      lane.head = 0;
    }
    return undefined;
  }

  /** Takes the entry `id` out of line (p-queue calls this when its signal aborts). */
  remove(id: string): void {
    const entry = this.#byId.get(id);
    if (entry === undefined) return;
    this.#byId.delete(id);
    entry.run = undefined;
    this.#removed += 1;
    if (this.#removed > this.#byId.size + SWEEP_SLACK) this.#sweep();
  }

  filter(options: Readonly<Partial<QueueAddOptions>>): RunFunction[] {
    const runs: RunFunction[] = [];
    for (const lane of this.#lanes)
      if (options.priority === undefined || lane.priority === options.priority)
        for (let i = lane.head; i < lane.entries.length; i++) {
          const run = lane.entries[i]?.run;
          if (run !== undefined) runs.push(run);
        }
    return runs;
  }

  setPriority(id: string, priority: number): void {
    const run = this.#byId.get(id)?.run;
    if (run === undefined) throw new ReferenceError(`No queued task has the id "${id}".`);
    this.remove(id);
    this.enqueue(run, { id, priority });
  }

  #lane(priority: number): { readonly priority: number; entries: Entry[]; head: number } {
    let lane = this.#lanes.find((l) => l.priority === priority);
    if (lane === undefined) {
      lane = { priority, entries: [], head: 0 };
      this.#lanes.push(lane);
      this.#lanes.sort((a, b) => b.priority - a.priority);
    }
    return lane;
  }

  /** Drops the removed entries from every lane. */
  #sweep(): void {
    for (const lane of this.#lanes) {
      lane.entries = lane.entries.slice(lane.head).filter((e) => e.run !== undefined);
      lane.head = 0;
    }
    this.#removed = 0;
  }
}
