import { UsageError } from '../../core/errors.js';
import type { ModelResponse } from '../../core/red-flags/index.js';
import type { BallotOption, NodeContext, Planner, PlannerCall } from '../../ports/planner.js';

/** The most leaves `maker bench tree` builds (eight children a split, five levels: 32,768 fit). */
export const MAX_BENCH_LEAVES = 10_000;

/** The split schema's bounds on children per node. */
const MIN_CHILDREN = 2;
const MAX_CHILDREN = 8;

/**
 * A balanced tree of exactly `leaves` leaves: `depth` levels of splits (the fewest that eight
 * children a node allow), each node covering a contiguous range of leaves. A node of `size`
 * leaves with `levels` levels below it has `childCount(size, levels)` children whose sizes differ
 * by at most one, so every leaf ends at depth `depth` when the numbers allow it.
 */
export class TreeShape {
  readonly leaves: number;
  readonly depth: number;

  constructor(leaves: number) {
    if (!Number.isInteger(leaves) || leaves < 1 || leaves > MAX_BENCH_LEAVES)
      throw new UsageError(
        `The benchmark tree holds 1 to ${MAX_BENCH_LEAVES.toLocaleString('en-US')} leaves (asked for ${leaves}).`,
      );
    this.leaves = leaves;
    let depth = 0;
    while (MAX_CHILDREN ** depth < leaves) depth += 1;
    this.depth = depth;
  }

  /** Leaves under the node with this engine id (`root`, `3`, `3-0`, …), as a [start, end) range. */
  range(nodeId: string): [number, number] {
    let lo = 0;
    let size = this.leaves;
    if (nodeId === 'root') return [lo, lo + size];
    const parts = nodeId.split('-');
    for (let level = 0; level < parts.length; level++) {
      const index = Number(parts[level]);
      const count = childCount(size, this.depth - level);
      if (!Number.isInteger(index) || index < 0 || index >= count)
        throw new Error(`The benchmark tree has no node ${nodeId}.`);
      const base = Math.floor(size / count);
      const extra = size % count;
      lo += index * base + Math.min(index, extra);
      size = base + (index < extra ? 1 : 0);
    }
    return [lo, lo + size];
  }

  /** How many children the node with this id has (0 for a leaf). */
  children(nodeId: string): number {
    const [lo, hi] = this.range(nodeId);
    const level = nodeId === 'root' ? 0 : nodeId.split('-').length;
    return hi - lo <= 1 ? 0 : childCount(hi - lo, this.depth - level);
  }

  /** Nodes in the whole tree. */
  nodes(): number {
    const count = (size: number, levels: number): number => {
      if (size <= 1) return 1;
      const c = childCount(size, levels);
      const base = Math.floor(size / c);
      const extra = size % c;
      const larger = extra === 0 ? 0 : extra * count(base + 1, levels - 1);
      return 1 + larger + (c - extra) * count(base, levels - 1);
    };
    return count(this.leaves, this.depth);
  }
}

/**
 * Children of a node of `size` > 1 leaves with `levels` levels of splits left: about the
 * `levels`-th root of `size` (a balanced tree), at least enough that no child exceeds what its
 * own levels can hold, within the schema's 2..8.
 */
function childCount(size: number, levels: number): number {
  const needed = Math.ceil(size / MAX_CHILDREN ** Math.max(0, levels - 1));
  const balanced = Math.ceil(size ** (1 / Math.max(1, levels)) - 1e-9);
  return Math.min(MAX_CHILDREN, size, Math.max(MIN_CHILDREN, needed, balanced));
}

/**
 * A planner that splits the root into the {@link TreeShape} of `leaves` minimal subtasks, each
 * call taking `latencyMs`. A node covering one leaf is minimal; every other node splits.
 */
export class ShapePlanner implements Planner {
  readonly id = 'shape';
  readonly shape: TreeShape;
  calls = 0;

  constructor(
    leaves: number,
    private readonly latencyMs: number,
  ) {
    this.shape = new TreeShape(leaves);
  }

  isMinimal(context: NodeContext): Promise<ModelResponse> {
    return this.#reply({ minimal: this.shape.children(context.nodeId) === 0, reason: 'shape' });
  }

  proposeSplit(context: NodeContext): Promise<ModelResponse> {
    const count = this.shape.children(context.nodeId);
    const subtasks = Array.from({ length: count }, (_, i) => {
      const id = context.nodeId === 'root' ? String(i) : `${context.nodeId}-${i}`;
      return {
        title: `Part ${id}`,
        description: `Write part ${id}.`,
        acceptance: ['written'],
        files: [`src/${id}/`],
        dependsOn: [],
      };
    });
    return this.#reply({ subtasks, ambiguity: null });
  }

  castBallot(
    _c: NodeContext,
    _q: string,
    _o: readonly BallotOption[],
    _call: PlannerCall,
  ): Promise<ModelResponse> {
    return this.#reply({ choice: 'A', reason: 'shape' });
  }

  reviewCandidate(): Promise<ModelResponse> {
    return this.#reply({ verdict: 'ok', confidence: 0.99, reason: 'shape' });
  }

  async #reply(value: unknown): Promise<ModelResponse> {
    this.calls += 1;
    await sleep(this.latencyMs);
    return { text: JSON.stringify(value), finishReason: 'stop', outputTokens: 10 };
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
