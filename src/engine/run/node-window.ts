import { AbortedError } from '../../core/errors.js';
import type { TreeNode } from '../../core/tree/schema.js';
import type { Worker } from '../../ports/worker.js';

/** A node's place in the tree's depth-first order: the child indices on its path from the root. */
export type NodeOrder = readonly number[];

interface Entrant {
  readonly order: NodeOrder;
  readonly grant: () => void;
  readonly reject: (error: Error) => void;
}

/**
 * How many nodes of a run work at once: enough that every paid slot stays busy (a node has several
 * paid calls in flight, and spends some of its time on none), and, for a worker that bounds its
 * own runs (Jules' sessions), enough nodes to fill every session it may run at once.
 */
export function nodeWindowSize(
  concurrency: number,
  worker: Pick<Worker, 'limitsItself' | 'capacity'>,
): number {
  const sessions = worker.limitsItself === true ? Math.max(0, worker.capacity ?? 0) : 0;
  return 4 * Math.max(1, concurrency) + sessions;
}

/**
 * The nodes of a run that work at once: a node takes a place before it decides, samples or splits,
 * and gives it up once its own work is done (before a branch waits for its children, so a parent
 * never holds a place its children wait for). Waiting nodes are let in in the tree's depth-first
 * order (a node's path of child indices, smallest first): the subtree a parent merges next
 * finishes first, and what waits is a node's younger siblings, not the whole tree. Without it,
 * every node of the tree would start as soon as its parent split, and queue its paid calls on the
 * run's slots at once (the memory of a wide tree at low latency).
 *
 * A node that waits on a person ({@link lend}) does not count against the window while it waits,
 * so unanswered questions never stop the rest of the tree. When the halt `signal` aborts, waiting
 * nodes are rejected with {@link AbortedError}, and no node enters any more.
 */
export class NodeWindow {
  readonly #limit: number;
  readonly #signal: AbortSignal | undefined;
  #active = 0;
  /** Places lent to nodes waiting on a person: the window is that much wider meanwhile. */
  #lent = 0;
  /** Waiting nodes, a binary heap by depth-first order. */
  readonly #heap: Entrant[] = [];
  #most = 0;

  constructor(limit: number, signal?: AbortSignal) {
    this.#limit = Math.max(1, limit);
    this.#signal = signal;
    signal?.addEventListener('abort', () => this.#abortAll(), { once: true });
  }

  /** The most nodes that held a place at once (lent places included). */
  get most(): number {
    return this.#most;
  }

  /** Waits for a place; resolves with the function that gives it up (idempotent). */
  enter(order: NodeOrder): Promise<() => void> {
    if (this.#signal?.aborted === true)
      return Promise.reject(new AbortedError(this.#signal.reason));
    if (this.#active < this.#limit + this.#lent) {
      this.#take();
      return Promise.resolve(this.#leave());
    }
    return new Promise<() => void>((resolve, reject) =>
      this.#push({ order, grant: () => resolve(this.#leave()), reject }),
    );
  }

  /**
   * Widens the window by one place while `wait` (a person's answer) is pending: the node waiting
   * keeps its place, and another node may work meanwhile. Returns `wait`.
   */
  lend<T>(wait: Promise<T>): Promise<T> {
    this.#lent += 1;
    this.#admit();
    const back = (): void => {
      this.#lent -= 1;
    };
    wait.then(back, back);
    return wait;
  }

  #take(): void {
    this.#active += 1;
    if (this.#active > this.#most) this.#most = this.#active;
  }

  #leave(): () => void {
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#active -= 1;
      this.#admit();
    };
  }

  #admit(): void {
    while (this.#heap.length > 0 && this.#active < this.#limit + this.#lent) {
      const next = this.#pop() as Entrant;
      this.#take();
      next.grant();
    }
  }

  #abortAll(): void {
    const reason = new AbortedError(this.#signal?.reason);
    const waiting = this.#heap.splice(0);
    for (const entrant of waiting) entrant.reject(reason);
  }

  #push(entrant: Entrant): void {
    const heap = this.#heap;
    heap.push(entrant);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (compareOrder((heap[parent] as Entrant).order, entrant.order) <= 0) break;
      heap[i] = heap[parent] as Entrant;
      i = parent;
    }
    heap[i] = entrant;
  }

  #pop(): Entrant | undefined {
    const heap = this.#heap;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child =
        right < heap.length &&
        compareOrder((heap[right] as Entrant).order, (heap[left] as Entrant).order) < 0
          ? right
          : left;
      if (compareOrder(last.order, (heap[child] as Entrant).order) <= 0) break;
      heap[i] = heap[child] as Entrant;
      i = child;
    }
    heap[i] = last;
    return top;
  }
}

/** Depth-first order: by the first differing child index; an ancestor before its descendants. */
export function compareOrder(a: NodeOrder, b: NodeOrder): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** The node's path of child indices from the root (`nodes` holds its ancestors). */
export function nodeOrder(nodes: Readonly<Record<string, TreeNode>>, n: TreeNode): NodeOrder {
  const order: number[] = [];
  for (
    let p: TreeNode | undefined = n;
    p !== undefined && p.parentId !== null;
    p = nodes[p.parentId]
  )
    order.push(p.index);
  return order.reverse();
}
