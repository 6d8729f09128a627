import type { RunConfig } from './schema.js';

/** Marks on everything a simulated run writes, so its placeholder work is never taken for real work. */
export const SIMULATED_TITLE_PREFIX = '[simulated] ';
export const SIMULATED_TRAILER = 'Maker-Simulated: yes';

/**
 * Whether a run's plans and candidates are simulated: as its configuration records it, or, in state
 * files written before it did, when its planner is the simulated one.
 */
export function isSimulatedRun(config: Pick<RunConfig, 'simulated' | 'planner'>): boolean {
  return config.simulated ?? config.planner === 'sim';
}
