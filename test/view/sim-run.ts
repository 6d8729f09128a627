import { SimPlanner, SimWorker } from '../../src/adapters/sim/project-sim.js';
import type { RunConfig } from '../../src/core/tree/schema.js';
import { engineFor, openWorkspace } from '../../src/app/wiring/wiring.js';
import { baseConfig } from '../helpers/engine.js';
import { workspaceSettings } from '../helpers/settings.js';

/**
 * A sim run in a fresh repository at `dir`, driven here (no lock held) until it ends: with
 * `hitl: 'defer'` (the default) it stops at the root's clarify question.
 */
export async function simRun(dir: string, config: Partial<RunConfig> = {}) {
  const workspace = await openWorkspace(dir, true, workspaceSettings());
  const sim = { seed: 7, clarify: true };
  const engine = engineFor(
    dir,
    workspace,
    { planner: new SimPlanner(sim), worker: new SimWorker(sim) },
    { secrets: [], env: process.env },
  );
  const runId = await engine.create('a todo app', { ...baseConfig, hitl: 'defer', ...config });
  const outcome = await engine.run(runId);
  return { engine, workspace, runId, outcome, run: await engine.getRun(runId) };
}
