import { mkdtemp, rm, stat } from 'node:fs/promises';
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
import { CountingStore } from './counting-store.js';
import { ShapePlanner, sleep } from './tree-shape.js';

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
// eslint-disable-next-line max-lines-per-function -- over 80 lines: to be split by job (#40)
export async function runTreeBench(options: TreeBenchOptions) {
  const planner = new ShapePlanner(options.leaves, options.latencyMs); // refuses a bad size first
  const dir = await mkdtemp(join(tmpdir(), 'maker-bench-tree-'));
  const git = options.workspace === 'git' ? await openWorkspace(dir, true) : undefined;
  try {
    const workspace = git ?? new MemoryWorkspace();
    const worker = new DelayedWorker(new SimWorker({ seed: 1, ...FLAWLESS }), options.latencyMs);
    // The redactor every real run has (known key formats), so saves pay what they pay in a run.
    const store = new CountingStore(makerStateFile(dir, makeRedactor([])));
    const engine = new MakerEngine({ workspace, roles: { planner, worker }, store });
    const depth = planner.shape.depth;
    const config = runConfig({
      worker: 'sim',
      k: options.k,
      hitl: 'auto',
      // The engine's scheduling is measured, not checks (its planner proposes none).
      runChecks: false,
      concurrency: options.concurrency,
      maxDepth: depth,
      maxNodes: planner.shape.nodes() + 100,
      defaultBranch: 'main',
    });
    const runId = await engine.create('benchmark tree', config);
    const savesBefore = store.counts();
    const gitBefore = gitProcessCounts();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const outcome = await engine.run(runId);
    const wallMs = performance.now() - started;
    // The process's peak resident set so far (the kernel's high-water mark), taken before the
    // state-save measurement below adds its own synthetic state.
    const peakRssBytes = process.resourceUsage().maxRSS * 1024;
    const gitRun = processesSince(gitBefore);
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const saves = store.counts();
    const paidCalls = planner.calls + worker.calls;
    // Along the deepest path: per ancestor a minimal vote and a split; per leaf a minimal vote, candidates, their reviews.
    const criticalPathMs = (2 * depth + 3) * options.latencyMs;
    const latencyIdealMs = Math.max(
      criticalPathMs,
      Math.ceil(paidCalls / options.concurrency) * options.latencyMs,
    );
    // The engine runs on one thread: the run cannot take less wall than its own CPU time. At
    // latency 0 that is the whole ideal (CPU-bound), and the ratio is what waiting (git, disk) adds.
    const idealMs = Math.max(latencyIdealMs, Math.round(cpuMs));
    const run = await engine.getRun(runId);
    const nodes = Object.keys(run.nodes).length;
    const saveWallMs = saves.wallMs - savesBefore.wallMs;
    const saveCpuMs = saves.cpuMs - savesBefore.cpuMs;
    const savedBytes = saves.bytes - savesBefore.bytes;
    return {
      leavesRequested: options.leaves,
      leaves: Object.values(run.nodes).filter((n) => n.kind === 'leaf').length,
      nodes,
      depth,
      status: outcome.status,
      error: outcome.error ?? null,
      workspace: options.workspace,
      k: options.k,
      latencyMs: options.latencyMs,
      concurrency: options.concurrency,
      paidCalls,
      wallMs: Math.round(wallMs),
      cpuMs: Math.round(cpuMs),
      perNodeMs: round(wallMs / nodes, 3),
      perNodeCpuMs: round(cpuMs / nodes, 3),
      idealMs,
      idealBound: idealMs > latencyIdealMs ? 'cpu' : 'latency',
      ratio: round(wallMs / idealMs, 3),
      /** Peak RSS of the whole process up to the run's end (Node's own ~50 MB included), and per node. */
      peakRssMb: round(peakRssBytes / (1024 * 1024), 1),
      peakRssPerNodeKb: round(peakRssBytes / 1024 / nodes, 1),
      saves: {
        count: saves.saves - savesBefore.saves,
        wallMs: Math.round(saveWallMs),
        wallShare: round(saveWallMs / wallMs, 3),
        cpuMs: Math.round(saveCpuMs),
        cpuShare: round(saveCpuMs / cpuMs, 3),
        bytes: savedBytes,
        bytesPerNode: Math.round(savedBytes / nodes),
      },
      /** Git processes the run started (long-lived ones once each), in all, per node and by subcommand. */
      gitProcesses: {
        total: gitRun.total,
        perNode: round(gitRun.total / nodes, 2),
        byCommand: gitRun.byCommand,
      },
      stateSave: await measureStateSave(dir, options.stateNodes),
    };
  } finally {
    await git?.close();
    await rm(dir, { recursive: true, force: true });
  }
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
// eslint-disable-next-line max-lines-per-function -- over 80 lines: to be split by job (#40)
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
  const timed = async (write: () => Promise<void>) => {
    const t = performance.now();
    await write();
    return performance.now() - t;
  };
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
