import { pacedPlanner, pacedWorker } from '../../adapters/sim/paced.js';
import { SimPlanner, SimWorker } from '../../adapters/sim/project-sim.js';
import type { RunConfig } from '../../core/tree/schema.js';
import type { Planner } from '../../ports/planner.js';
import type { Worker } from '../../ports/worker.js';
import type { RoleOptions } from './kind.js';

/**
 * The seeded simulation's planner and worker (the sim kind's roles, and jules-fake's planner and
 * agent), paced when `options.paceMs` asks, so a person can watch the run.
 */
export function simRoles(
  config: RunConfig,
  options: RoleOptions = {},
): { planner: Planner; sim: Worker } {
  const sim = { seed: config.seed, ...config.sim };
  const pace = options.paceMs ?? 0;
  return pace > 0
    ? {
        planner: pacedPlanner(new SimPlanner(sim), pace),
        sim: pacedWorker(new SimWorker(sim), pace),
      }
    : { planner: new SimPlanner(sim), sim: new SimWorker(sim) };
}
