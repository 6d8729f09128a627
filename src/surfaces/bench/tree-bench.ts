import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryWorkspace } from '../../adapters/memory/memory-workspace.js';
import { SimWorker } from '../../adapters/sim/project-sim.js';
import { makerStateFile } from '../../adapters/state/state-file.js';
import type { ModelResponse } from '../../core/red-flags.js';
import type { StateFile, TreeNode } from '../../core/tree/schema.js';
import { MakerEngine } from '../../engine/maker-engine.js';
import type { BallotOption, NodeContext, Planner, PlannerCall } from '../../ports/planner.js';
import type { Worker, WorkerTask } from '../../ports/worker.js';
import { openWorkspace, runConfig } from '../wiring.js';

export interface TreeBenchOptions {
  readonly leaves: number;
  readonly latencyMs: number;
  readonly concurrency: number;
  readonly k: number;
  /** `memory` measures the engine's scheduling; `git` adds real git for every tree, commit and merge. */
  readonly workspace: 'memory' | 'git';
  readonly stateNodes: number;
}

/**
 * A planner that splits the root into a balanced tree of exactly `leaves` minimal subtasks (at most
 * eight children a node, as the split schema allows), each call taking `latency`.
 */
export class ShapePlanner implements Planner {
  readonly id = 'shape';
  readonly depth: number;
  readonly #fanout: number;
  calls = 0;

  constructor(
    private readonly leaves: number,
    private readonly latencyMs: number,
  ) {
    this.depth = Math.max(1, Math.ceil(Math.log(leaves) / Math.log(8) - 1e-9));
    this.#fanout = Math.max(2, Math.ceil(leaves ** (1 / this.depth) - 1e-9));
  }

  isMinimal(context: NodeContext): Promise<ModelResponse> {
    const [lo, hi] = this.#range(context.nodeId);
    return this.#reply({ minimal: hi - lo <= 1, reason: 'shape' });
  }

  proposeSplit(context: NodeContext): Promise<ModelResponse> {
    const [lo, hi] = this.#range(context.nodeId);
    const piece = this.#piece(hi - lo, context.depth);
    const subtasks = Array.from({ length: Math.ceil((hi - lo) / piece) }, (_, i) => {
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

  /** Leaves a child covers at `depth`: a balanced share, or single leaves when that would leave one child. */
  #piece(size: number, depth: number): number {
    const share = this.#fanout ** Math.max(0, this.depth - depth - 1);
    return Math.ceil(size / share) < 2 ? 1 : share;
  }

  #range(nodeId: string): [number, number] {
    let lo = 0;
    let hi = this.leaves;
    if (nodeId === 'root') return [lo, hi];
    nodeId.split('-').forEach((part, depth) => {
      const piece = this.#piece(hi - lo, depth);
      lo += Number(part) * piece;
      hi = Math.min(hi, lo + piece);
    });
    return [lo, hi];
  }

  async #reply(value: unknown): Promise<ModelResponse> {
    this.calls += 1;
    await sleep(this.latencyMs);
    return { text: JSON.stringify(value), finishReason: 'stop', outputTokens: 10 };
  }
}

class DelayedWorker implements Worker {
  readonly id = 'sim+latency';
  calls = 0;
  constructor(
    private readonly inner: Worker,
    private readonly latencyMs: number,
  ) {}
  async run(task: WorkerTask, slot: number) {
    this.calls += 1;
    await sleep(this.latencyMs);
    return this.inner.run(task, slot);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * `maker bench tree`: a run over `leaves` minimal subtasks with simulated latency on every paid
 * call, against the ideal schedule (all paid calls spread over the concurrency cap, or the critical
 * path, whichever is longer); and the time to save a `stateNodes`-node state file.
 */
export async function runTreeBench(options: TreeBenchOptions) {
  const dir = await mkdtemp(join(tmpdir(), 'maker-bench-tree-'));
  try {
    const workspace =
      options.workspace === 'git' ? await openWorkspace(dir, true) : new MemoryWorkspace();
    const planner = new ShapePlanner(options.leaves, options.latencyMs);
    const worker = new DelayedWorker(
      new SimWorker({
        seed: 1,
        flagRate: 0,
        failRate: 0,
        errorRate: 0,
        confusedRate: 0,
        conflictRate: 0,
      }),
      options.latencyMs,
    );
    const engine = new MakerEngine({
      workspace,
      roles: { planner, worker },
      store: makerStateFile(dir),
    });
    const config = runConfig({
      worker: 'sim',
      k: options.k,
      hitl: 'auto',
      concurrency: options.concurrency,
      maxDepth: 3,
      maxNodes: options.leaves * 2 + 100,
      defaultBranch: 'main',
    });
    const runId = await engine.create('benchmark tree', config);
    const started = performance.now();
    const outcome = await engine.run(runId);
    const wallMs = performance.now() - started;
    const paidCalls = planner.calls + worker.calls;
    const depth = planner.depth;
    // Along the deepest path: per ancestor a minimal vote and a split; per leaf a minimal vote, candidates, their reviews.
    const criticalPathMs = (2 * depth + 3) * options.latencyMs;
    const idealMs = Math.max(
      criticalPathMs,
      Math.ceil(paidCalls / options.concurrency) * options.latencyMs,
    );
    const run = await engine.getRun(runId);
    return {
      leaves: Object.values(run.nodes).filter((n) => n.kind === 'leaf').length,
      nodes: Object.keys(run.nodes).length,
      status: outcome.status,
      error: outcome.error ?? null,
      workspace: options.workspace,
      k: options.k,
      latencyMs: options.latencyMs,
      concurrency: options.concurrency,
      paidCalls,
      wallMs: Math.round(wallMs),
      idealMs,
      ratio: Math.round((wallMs / idealMs) * 1000) / 1000,
      stateSave: await measureStateSave(dir, options.stateNodes),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** First and median time to save a state file holding one run of `count` leaf nodes with three candidates each. */
async function measureStateSave(dir: string, count: number) {
  const store = makerStateFile(join(dir, 'save-bench'));
  await rm(join(dir, 'save-bench'), { recursive: true, force: true });
  await (await import('node:fs/promises')).mkdir(join(dir, 'save-bench'));
  const state: StateFile = await store.load();
  const nodes: Record<string, TreeNode> = {};
  for (let i = 0; i < count; i++) {
    const id = i === 0 ? 'root' : String(i);
    nodes[id] = {
      id,
      parentId: i === 0 ? null : 'root',
      depth: i === 0 ? 0 : 1,
      index: i,
      title: `Subtask ${i}`,
      description: `Do part ${i} of the work, carefully.`,
      acceptance: ['It works'],
      files: [`src/${i}/`],
      dependsOn: [],
      status: 'done',
      kind: i === 0 ? 'branch' : 'leaf',
      children: [],
      clarifications: [],
      integrations: {},
      leaf: {
        attempt: 0,
        ballots: [],
        draws: [0, 1, 2].map((slot) => ({
          slot,
          status: 'valid' as const,
          key: 'f'.repeat(40),
          flags: [],
        })),
        outcome: {
          status: 'decided',
          key: 'f'.repeat(40),
          votes: 3,
          runnerUpVotes: 0,
          draws: 3,
          flagged: 0,
        },
      },
      branch: `maker/r/n-${id}`,
      baseCommit: 'a'.repeat(40),
      mergeHeads: [],
      commit: 'b'.repeat(40),
      cost: { modelCalls: 3, workerRuns: 3, tokens: 300 },
    };
  }
  state.runs['r-bench'] = {
    id: 'r-bench',
    idea: 'bench',
    createdAt: new Date(0).toISOString(),
    status: 'done',
    baseCommit: 'a'.repeat(40),
    rootId: 'root',
    nodes,
    questions: [],
    eventSeq: 0,
    config: runConfig({ worker: 'sim', hitl: 'auto', defaultBranch: 'main' }),
  };
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t = performance.now();
    await store.save(state);
    times.push(performance.now() - t);
  }
  const firstMs = Math.round((times[0] as number) * 10) / 10;
  times.sort((a, b) => a - b);
  const { size } = await stat(store.path);
  // The first save serialises every node; later ones reuse finished nodes' JSON.
  return {
    nodes: count,
    bytes: size,
    firstMs,
    medianMs: Math.round((times[3] as number) * 10) / 10,
  };
}
