import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitProcessCounts } from '../../adapters/git/run-git.js';
import { MemoryWorkspace } from '../../adapters/memory/memory-workspace.js';
import { FLAWLESS, SimWorker } from '../../adapters/sim/project-sim.js';
import { makerStateFile } from '../../adapters/state/state-file.js';
import { makeRedactor } from '../../core/errors.js';
import type { StateFile, TreeNode } from '../../core/tree/schema.js';
import { MakerEngine } from '../../engine/maker-engine.js';
import type { Worker, WorkerTask } from '../../ports/worker.js';
import { openWorkspace, runConfig } from '../../app/wiring/wiring.js';
import { readSettings } from '../../app/settings.js';
import { CountingStore, type SaveCounts } from './counting-store.js';
import { ShapePlanner, sleep, type TreeShape } from './tree-shape.js';

export interface TreeBenchOptions {
  /** Minimal subtasks the run has, exactly: 1 to `MAX_BENCH_LEAVES`. */
  readonly leaves: number;
  readonly latencyMs: number;
  readonly concurrency: number;
  readonly k: number;
  /** `memory` measures the engine's scheduling; `git` adds real git for every tree, commit and merge. */
  readonly workspace: 'memory' | 'git';
  readonly stateNodes: number;
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

/**
 * `maker bench tree`: a run over exactly `leaves` minimal subtasks with simulated latency on every
 * paid call, against the ideal schedule (all paid calls spread over the concurrency cap, or the
 * critical path, whichever is longer); what the run's state saves cost (through a counting
 * decorator on the real state file); and the time to save a `stateNodes`-node state file.
 */
export async function runTreeBench(options: TreeBenchOptions) {
  const planner = new ShapePlanner(options.leaves, options.latencyMs); // refuses a bad size first
  const dir = await mkdtemp(join(tmpdir(), 'maker-bench-tree-'));
  const git =
    options.workspace === 'git'
      ? await openWorkspace(dir, true, readSettings(process.env))
      : undefined;
  try {
    const workspace = git ?? new MemoryWorkspace();
    const worker = new DelayedWorker(new SimWorker({ seed: 1, ...FLAWLESS }), options.latencyMs);
    // The redactor every real run has (known key formats), so saves pay what they pay in a run.
    const store = new CountingStore(makerStateFile(dir, makeRedactor([])));
    const engine = new MakerEngine({ workspace, roles: { planner, worker }, store });
    const runId = await engine.create('benchmark tree', benchConfig(options, planner.shape));
    const measured = await measureRun(engine, runId, store);
    const paidCalls = planner.calls + worker.calls;
    const ideal = idealSchedule(options, planner.shape.depth, paidCalls, measured.cpuMs);
    const run = await engine.getRun(runId);
    const nodes = Object.keys(run.nodes).length;
    const { wallMs, cpuMs, peakRssBytes } = measured;
    return {
      leavesRequested: options.leaves,
      leaves: Object.values(run.nodes).filter((n) => n.kind === 'leaf').length,
      nodes,
      depth: planner.shape.depth,
      status: measured.outcome.status,
      error: measured.outcome.error ?? null,
      workspace: options.workspace,
      k: options.k,
      latencyMs: options.latencyMs,
      concurrency: options.concurrency,
      paidCalls,
      wallMs: Math.round(wallMs),
      cpuMs: Math.round(cpuMs),
      perNodeMs: round(wallMs / nodes, 3),
      perNodeCpuMs: round(cpuMs / nodes, 3),
      idealMs: ideal.idealMs,
      idealBound: ideal.bound,
      ratio: round(wallMs / ideal.idealMs, 3),
      /** Peak RSS of the whole process up to the run's end (Node's own ~50 MB included), and per node. */
      peakRssMb: round(peakRssBytes / (1024 * 1024), 1),
      peakRssPerNodeKb: round(peakRssBytes / 1024 / nodes, 1),
      saves: savesReport(measured, nodes),
      /** Git processes the run started (long-lived ones once each), in all, per node and by subcommand. */
      gitProcesses: {
        total: measured.git.total,
        perNode: round(measured.git.total / nodes, 2),
        byCommand: measured.git.byCommand,
      },
      stateSave: await measureStateSave(dir, options.stateNodes),
    };
  } finally {
    await git?.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The run's settings: the bench's knobs, and room for exactly the shape's tree. */
function benchConfig(options: TreeBenchOptions, shape: TreeShape) {
  return runConfig({
    worker: 'sim',
    k: options.k,
    hitl: 'auto',
    // The engine's scheduling is measured, not checks (its planner proposes none).
    runChecks: false,
    concurrency: options.concurrency,
    maxDepth: shape.depth,
    maxNodes: shape.nodes() + 100,
    defaultBranch: 'main',
  });
}

/**
 * Runs `runId` to its end and measures it: wall and CPU time, the process's peak RSS, and the
 * state saves and git processes the run made (counted from its start).
 */
async function measureRun(engine: MakerEngine, runId: string, store: CountingStore<StateFile>) {
  const savesBefore = store.counts();
  const gitBefore = gitProcessCounts();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const outcome = await engine.run(runId);
  const wallMs = performance.now() - started;
  // The process's peak resident set so far (the kernel's high-water mark), taken before the
  // state-save measurement below adds its own synthetic state.
  const peakRssBytes = process.resourceUsage().maxRSS * 1024;
  const git = processesSince(gitBefore);
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  return { outcome, wallMs, cpuMs, peakRssBytes, git, saves: savesSince(store, savesBefore) };
}

/**
 * The ideal schedule's wall time: the critical path, or all paid calls spread evenly over the
 * cap, or the run's own CPU time, whichever is longest; and which bound it is.
 */
function idealSchedule(options: TreeBenchOptions, depth: number, paidCalls: number, cpuMs: number) {
  // Along the deepest path: per ancestor a minimal vote and a split; per leaf a minimal vote, candidates, their reviews.
  const criticalPathMs = (2 * depth + 3) * options.latencyMs;
  const latencyIdealMs = Math.max(
    criticalPathMs,
    Math.ceil(paidCalls / options.concurrency) * options.latencyMs,
  );
  // The engine runs on one thread: the run cannot take less wall than its own CPU time. At
  // latency 0 that is the whole ideal (CPU-bound), and the ratio is what waiting (git, disk) adds.
  const idealMs = Math.max(latencyIdealMs, Math.round(cpuMs));
  return { idealMs, bound: idealMs > latencyIdealMs ? 'cpu' : 'latency' };
}

function savesSince(store: CountingStore<StateFile>, before: SaveCounts): SaveCounts {
  const now = store.counts();
  return {
    saves: now.saves - before.saves,
    wallMs: now.wallMs - before.wallMs,
    cpuMs: now.cpuMs - before.cpuMs,
    bytes: now.bytes - before.bytes,
  };
}

/** The run's state saves: how many, their share of the run's wall and CPU time, the bytes per node. */
function savesReport(
  { saves, wallMs, cpuMs }: { saves: SaveCounts; wallMs: number; cpuMs: number },
  nodes: number,
) {
  return {
    count: saves.saves,
    wallMs: Math.round(saves.wallMs),
    wallShare: round(saves.wallMs / wallMs, 3),
    cpuMs: Math.round(saves.cpuMs),
    cpuShare: round(saves.cpuMs / cpuMs, 3),
    bytes: saves.bytes,
    bytesPerNode: Math.round(saves.bytes / nodes),
  };
}

function processesSince(before: ReturnType<typeof gitProcessCounts>) {
  const now = gitProcessCounts();
  const byCommand: Record<string, number> = {};
  for (const [command, count] of Object.entries(now.byCommand)) {
    const delta = count - (before.byCommand[command] ?? 0);
    if (delta > 0) byCommand[command] = delta;
  }
  return { total: now.total - before.total, byCommand };
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/**
 * Saving a state file holding one run of `count` leaf nodes with three candidates each: the first
 * save (a whole snapshot), the median save after one node changed (a log append), and a
 * compaction (a clean stop).
 */
async function measureStateSave(dir: string, count: number) {
  const store = makerStateFile(join(dir, 'save-bench'));
  await rm(join(dir, 'save-bench'), { recursive: true, force: true });
  await mkdir(join(dir, 'save-bench'));
  const state: StateFile = await store.load();
  const nodes: Record<string, TreeNode> = {};
  for (let i = 0; i < count; i++) {
    const node = finishedNode(i);
    nodes[node.id] = node;
  }
  state.runs['r-bench'] = finishedRun(nodes);
  // The first save after a load writes a snapshot, every node serialised.
  const firstMs = await timed(() => store.save(state));
  // Then a save costs what changed: here one live node, appended to the log.
  const live = (nodes['1'] ?? nodes['root']) as TreeNode; // one node: the root itself
  live.status = 'sampling';
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    live.cost.modelCalls += 1;
    times.push(await timed(() => store.save(state)));
  }
  times.sort((a, b) => a - b);
  // A clean stop folds the log into a new snapshot (finished nodes' JSON made again, in pieces).
  const compactMs = await timed(() => store.compact(state));
  const { size } = await stat(store.path);
  const ms = (x: number) => Math.round(x * 10) / 10;
  return {
    nodes: count,
    bytes: size,
    firstMs: ms(firstMs),
    medianMs: ms(times[3] as number),
    compactMs: ms(compactMs),
  };
}

/** Milliseconds `write` took. */
async function timed(write: () => Promise<void>): Promise<number> {
  const t = performance.now();
  await write();
  return performance.now() - t;
}

/** Node `i` of the synthetic run: `i` 0 is the root, every other a done leaf under it, voted 3 to 0. */
function finishedNode(i: number): TreeNode {
  const id = i === 0 ? 'root' : String(i);
  return {
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

/** The synthetic run, done, holding `nodes`. */
function finishedRun(nodes: Record<string, TreeNode>): StateFile['runs'][string] {
  return {
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
}
