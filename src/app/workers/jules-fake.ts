import { envValue } from '../env.js';
import { JULES_PLANS, OUTAGE_SETTING, julesOptions } from './jules-settings.js';
import { defineWorkerKind } from './kind.js';

/** `--worker jules-fake`: the Jules protocol against a local fake server with a simulated agent. */
export const julesFake = defineWorkerKind({
  name: 'jules-fake',
  summary:
    'the Jules protocol against a local fake server with a simulated agent: offline, placeholder files',
  simulated: true,
  // The fake has no plan to respect: wide limits, so demos show the pipeline.
  options: julesOptions({ ...JULES_PLANS.pro, dailySessions: 10_000, planReview: false }),
  // Its fake Jules reads the repository's origin, as Jules reads GitHub: a demo gives it one.
  readsOrigin: true,
  settings: [OUTAGE_SETTING],
  roles: async (config, workspace, settings, options) => {
    const [{ simRoles }, { fakeJulesWorker, outageMs }] = await Promise.all([
      import('./sim-roles.js'),
      import('./jules-build.js'),
    ]);
    const { planner, sim: simWorker } = simRoles(config, options);
    const { worker, close } = fakeJulesWorker(config, workspace, simWorker, {
      outageMs: outageMs(config, envValue(settings.env, 'MAKER_JULES_OUTAGE_S')),
      publisher: options?.publisher,
      sourceGitDir: options?.sourceGitDir,
    });
    return { planner, worker, close };
  },
});
