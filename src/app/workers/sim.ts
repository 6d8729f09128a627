import { defineWorkerKind } from './kind.js';

/** `--worker sim`: a seeded offline simulation. */
export const sim = defineWorkerKind({
  name: 'sim',
  summary: 'a seeded offline simulation: placeholder files, no model calls, no key',
  simulated: true,
  settings: [],
  roles: async (config, _workspace, _settings, options) => {
    const { simRoles } = await import('./sim-roles.js');
    const { planner, sim: worker } = simRoles(config, options);
    return { planner, worker };
  },
});
