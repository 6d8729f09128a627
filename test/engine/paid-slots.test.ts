import { describe, expect, it } from 'vitest';
import { MemoryWorkspace } from '../../src/adapters/memory/memory-workspace.js';
import { FLAWLESS, SimWorker } from '../../src/adapters/sim/project-sim.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import { Semaphore } from '../../src/core/semaphore.js';
import { STATE_SCHEMA_VERSION } from '../../src/core/tree/schema.js';
import type { Planner } from '../../src/ports/planner.js';
import type { Worker, WorkerTask } from '../../src/ports/worker.js';
import { ShapePlanner, sleep } from '../../src/surfaces/bench/tree-shape.js';
import { runConfig } from '../../src/app/wiring/wiring.js';

/** Counts what is in flight at once: model calls, worker runs, and both together. */
class InFlight {
  calls = 0;
  runs = 0;
  maxCalls = 0;
  maxRuns = 0;
  maxBoth = 0;
  /** Reviews that started while a worker run was in flight. */
  reviewsDuringRuns = 0;

  async track<T>(kind: 'calls' | 'runs', work: () => Promise<T>): Promise<T> {
    this[kind] += 1;
    this.maxCalls = Math.max(this.maxCalls, this.calls);
    this.maxRuns = Math.max(this.maxRuns, this.runs);
    this.maxBoth = Math.max(this.maxBoth, this.calls + this.runs);
    try {
      return await work();
    } finally {
      this[kind] -= 1;
    }
  }
}

/** The shape planner (`leaves` minimal subtasks, 2 ms a call), every call counted. */
function countedPlanner(
  leaves: number,
  inFlight: InFlight,
): Planner & { shape: ShapePlanner['shape'] } {
  const inner = new ShapePlanner(leaves, 2);
  return {
    id: inner.id,
    shape: inner.shape,
    isMinimal: (context) => inFlight.track('calls', () => inner.isMinimal(context)),
    proposeSplit: (context) => inFlight.track('calls', () => inner.proposeSplit(context)),
    castBallot: (...a) => inFlight.track('calls', () => inner.castBallot(...a)),
    reviewCandidate: () => {
      if (inFlight.runs > 0) inFlight.reviewsDuringRuns += 1;
      return inFlight.track('calls', () => inner.reviewCandidate());
    },
  };
}

/** The sim worker, each run taking 10 ms; `cap` set: a worker that bounds its own runs, as Jules does. */
function countedWorker(inFlight: InFlight, cap?: number): Worker {
  const inner = new SimWorker({ seed: 1, ...FLAWLESS });
  const own = cap === undefined ? undefined : new Semaphore(cap);
  const run = (task: WorkerTask, slot: number) =>
    inFlight.track('runs', async () => {
      await sleep(10);
      return inner.run(task, slot);
    });
  return {
    id: 'counted',
    ...(own === undefined ? {} : { limitsItself: true }),
    run: (task, slot) => (own === undefined ? run(task, slot) : own.run(() => run(task, slot))),
  };
}

async function runWith(worker: (inFlight: InFlight) => Worker, concurrency: number) {
  const inFlight = new InFlight();
  const planner = countedPlanner(4, inFlight);
  const engine = new MakerEngine({
    workspace: new MemoryWorkspace(),
    roles: { planner, worker: worker(inFlight) },
    store: {
      path: '(memory)',
      load: () => Promise.resolve({ $schemaVersion: STATE_SCHEMA_VERSION, runs: {} }),
      save: () => Promise.resolve(),
    },
  });
  const config = runConfig({
    worker: 'sim',
    k: 2,
    hitl: 'auto',
    concurrency,
    maxDepth: planner.shape.depth,
    maxNodes: planner.shape.nodes() + 100,
    defaultBranch: 'main',
    // An in-memory workspace runs no checks: this test counts paid slots.
    runChecks: false,
  });
  const outcome = await engine.run(await engine.create('a tree', config));
  expect(outcome.status).toBe('done');
  return inFlight;
}

describe("the run's paid slots", () => {
  it('do not count the runs of a worker that limits itself: its cap, not --concurrency, bounds them', async () => {
    // One model call at once; the worker's own cap is 3 (= 2k − 1 candidates of a leaf).
    const inFlight = await runWith((f) => countedWorker(f, 3), 1);
    expect(inFlight.maxCalls).toBe(1);
    expect(inFlight.maxRuns).toBe(3);
    // A finished candidate's review did not wait for the runs still going on.
    expect(inFlight.reviewsDuringRuns).toBeGreaterThan(0);
  });

  it("bound every other worker's runs together with the model calls", async () => {
    const inFlight = await runWith((f) => countedWorker(f), 2);
    expect(inFlight.maxBoth).toBe(2);
    expect(inFlight.maxRuns).toBe(2);
  });
});
