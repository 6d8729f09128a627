import { describe, expect, it } from 'vitest';
import { FLAWLESS, SimPlanner, SimWorker } from '../../src/adapters/sim/project-sim.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import { summarise } from '../../src/core/view/summary.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { baseConfig } from '../helpers/engine.js';
import { useTempDirs } from '../helpers/tmp.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();

describe('the summary of a run waiting at its final veto (--hitl defer)', () => {
  it('names the root branch the result (and its pull request) is on', async () => {
    // Failed at main: "rootBranch": null while the branch (and, with GitHub, its pull request) existed.
    const dir = await tempDir();
    const workspace = await openWorkspace(dir, true, workspaceSettings());
    const options = { seed: 7, depth: 1, ...FLAWLESS };
    const engine = new MakerEngine({
      workspace,
      roles: { planner: new SimPlanner(options), worker: new SimWorker(options) },
      store: makerStateFile(dir),
    });
    const runId = await engine.create('a csv tool', { ...baseConfig, hitl: 'defer' });
    const outcome = await engine.run(runId);
    await workspace.close();
    expect(outcome.pending.map((q) => q.id)).toEqual(['q-root-veto']);
    expect(summarise(await engine.getRun(runId)).rootBranch).toBe(`maker/${runId}/n-root`);
  });
});
