import { describe, expect, it } from 'vitest';
import { MemoryWorkspace } from '../../src/adapters/memory/memory-workspace.js';
import { FLAWLESS, SimPlanner } from '../../src/adapters/sim/project-sim.js';
import type { RunConfig, StateFile } from '../../src/core/tree/schema.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import type { Worker } from '../../src/ports/worker.js';
import { baseConfig } from '../helpers/engine.js';

/** An engine on an in-memory workspace and state, with the sim planner and `worker`. */
function engineWith(worker: Worker, depth = 1) {
  let saved: StateFile = { $schemaVersion: 2, runs: {} };
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

const config = (overrides: Partial<RunConfig>): RunConfig => ({ ...baseConfig, ...overrides });

describe('a run that cannot go on', () => {
  it('under --hitl auto, stops when every candidate is red-flagged instead of resampling forever', async () => {
    let runs = 0;
    const worker: Worker = {
      id: 'always-fails',
      run: () => {
        // A guard for the old behaviour: without it the test would never end.
        if (++runs > 200) throw new Error('runaway: still resampling after 200 worker runs');
        return Promise.resolve({ ok: false, reason: 'the session FAILED' });
      },
    };
    const engine = engineWith(worker);
    const runId = await engine.create('a tool', config({ hitl: 'auto', maxDepth: 0 }));
    const outcome = await engine.run(runId);
    expect(outcome.status).toBe('failed');
    expect(outcome.error).not.toMatch(/runaway/);
    expect(outcome.error).toMatch(/red-flagged/);
    // The question stays for a person: `maker answer`, then `maker resume`.
    expect(outcome.pending.map((q) => q.id)).toEqual(['q-root-patch-1']);
    expect(runs).toBeLessThanOrEqual(3 * baseConfig.maxCandidates);
  });
});
