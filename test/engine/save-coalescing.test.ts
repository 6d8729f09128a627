import { describe, expect, it } from 'vitest';
import { MemoryWorkspace } from '../../src/adapters/memory/memory-workspace.js';
import { FLAWLESS, SimWorker } from '../../src/adapters/sim/project-sim.js';
import { STATE_SCHEMA_VERSION, type StateFile, type TreeNode } from '../../src/core/tree/schema.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import type { StateStore } from '../../src/ports/state-store.js';
import { ShapePlanner } from '../../src/surfaces/bench/tree-shape.js';
import { runConfig } from '../../src/app/wiring/wiring.js';

/** An in-memory store that keeps, per node, a copy of it as each save that named it saw it. */
class RecordingStore implements StateStore<StateFile> {
  readonly path = '(memory)';
  readonly saved = new Map<string, TreeNode[]>();
  #state: StateFile = { $schemaVersion: STATE_SCHEMA_VERSION, runs: {} };

  load(): Promise<StateFile> {
    return Promise.resolve(this.#state);
  }

  save(document: StateFile, changed?: ReadonlySet<object>): Promise<void> {
    this.#state = document;
    const nodes = Object.values(document.runs).flatMap((run) => Object.values(run.nodes));
    for (const n of nodes) {
      if (changed !== undefined && !changed.has(n)) continue;
      const copies = this.saved.get(n.id) ?? [];
      copies.push(JSON.parse(JSON.stringify(n)) as TreeNode);
      this.saved.set(n.id, copies);
    }
    return Promise.resolve();
  }
}

describe('saves the engine names', () => {
  it("carry a leaf's start and forced kind with its first draws, and every change reaches a save", async () => {
    const planner = new ShapePlanner(12, 0);
    const worker = new SimWorker({ seed: 1, ...FLAWLESS });
    const store = new RecordingStore();
    const engine = new MakerEngine({
      workspace: new MemoryWorkspace(),
      roles: { planner, worker },
      store,
    });
    const config = runConfig({
      worker: 'sim',
      k: 2,
      hitl: 'auto',
      maxDepth: planner.shape.depth,
      maxNodes: planner.shape.nodes() + 100,
      defaultBranch: 'main',
      // An in-memory workspace runs no checks: this test is about saves.
      runChecks: false,
    });
    const runId = await engine.create('a tree', config);
    expect((await engine.run(runId)).status).toBe('done');
    const run = await engine.getRun(runId);
    const leaves = Object.values(run.nodes).filter((n) => n.kind === 'leaf');
    expect(leaves).toHaveLength(12);
    for (const leaf of leaves) {
      const seen = store.saved.get(leaf.id) ?? [];
      // Never saved between its start and its first draws (the kind is forced by the depth).
      expect(seen.filter((n) => n.status === 'deciding')).toEqual([]);
      expect(seen[1]).toMatchObject({ status: 'sampling', kind: 'leaf' });
      expect(seen[1]?.leaf?.draws).toHaveLength(3);
    }
    // Everything reached a save: the last copy of every node is the node.
    for (const n of Object.values(run.nodes))
      expect(store.saved.get(n.id)?.at(-1)).toEqual(JSON.parse(JSON.stringify(n)));
  });
});
