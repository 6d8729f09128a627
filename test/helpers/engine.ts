import { MemoryWorkspace } from '../../src/adapters/memory/memory-workspace.js';
import { FLAWLESS, SimPlanner } from '../../src/adapters/sim/project-sim.js';
import {
  STATE_SCHEMA_VERSION,
  type RunConfig,
  type StateFile,
} from '../../src/core/tree/schema.js';
import type { EngineEvent } from '../../src/engine/events.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import type { Worker } from '../../src/ports/worker.js';

/** A medium-confidence sim run that answers its own questions. */
export const baseConfig: RunConfig = {
  worker: 'sim',
  planner: 'sim',
  k: 2,
  confidence: 'medium',
  maxDepth: 3,
  maxNodes: 60,
  maxCandidates: 8,
  maxBallots: 10,
  maxFlagRate: 0.6,
  maxChangedLines: 400,
  concurrency: 4,
  seed: 7,
  hitl: 'auto',
  runChecks: false,
  allow: { executables: [], symlinks: [], workflows: false },
  maxFileBytes: 1_000_000,
  defaultBranch: 'main',
};

/**
 * An engine on an in-memory workspace and state (each load a copy of the last save), with the
 * flawless sim planner of seed 7 (nodes minimal at `depth`) and `worker`.
 */
export function memoryEngine(worker: Worker, depth = 1): MakerEngine {
  let saved: StateFile = { $schemaVersion: STATE_SCHEMA_VERSION, runs: {} };
  return new MakerEngine({
    workspace: new MemoryWorkspace(),
    roles: { planner: new SimPlanner({ seed: 7, depth, ...FLAWLESS }), worker },
    store: {
      path: '(memory)',
      load: () => Promise.resolve(structuredClone(saved)),
      save: (state) => {
        saved = structuredClone(state);
        return Promise.resolve();
      },
    },
  });
}

/**
 * Listens to `engine`'s events until `done()`: every event is kept, and `stop` is aborted at the
 * first event `stopWhen` picks (a run given `stop` ends there, as a kill would end it).
 */
export function listenTo(
  engine: MakerEngine,
  stopWhen?: (e: EngineEvent) => boolean,
): { events: EngineEvent[]; stop: AbortSignal; done: () => Promise<void> } {
  const events: EngineEvent[] = [];
  const listening = new AbortController();
  const stop = new AbortController();
  const listened = (async () => {
    for await (const e of engine.events(listening.signal)) {
      events.push(e);
      if (stopWhen?.(e) === true) stop.abort();
    }
  })().catch(() => undefined);
  return {
    events,
    stop: stop.signal,
    done: async () => {
      listening.abort();
      await listened;
    },
  };
}
