import { envValue } from '../env.js';
import { GEMINI_SETTINGS, geminiNeeds } from './gemini.js';
import {
  JULES_PLANS,
  OUTAGE_SETTING,
  julesOptions,
  julesSessionUrl,
  julesSourceProblem,
  pollSetting,
  pollSettingProblem,
} from './jules-settings.js';
import { defineWorkerKind } from './kind.js';

/** `--worker jules`: Jules sessions write each candidate; Gemini plans, judges and integrates. */
export const jules = defineWorkerKind({
  name: 'jules',
  summary:
    'Jules sessions write each candidate (needs JULES_API_KEY, a model access for Gemini and the repository on GitHub, connected to Jules)',
  simulated: false,
  options: julesOptions({ ...JULES_PLANS.free, planReview: false }),
  sessionUrl: julesSessionUrl,
  settings: [
    {
      env: 'JULES_API_KEY',
      purpose: 'Jules sessions write the candidates',
      required:
        'In a terminal: export JULES_API_KEY=… (from the Jules settings page, https://jules.google.com/settings); in Gemini CLI: gemini extensions config maker "Jules API key".',
    },
    {
      env: 'JULES_SOURCE',
      purpose: 'the Jules source, when origin is not the GitHub repository',
    },
    { env: 'JULES_BASE_URL', purpose: 'the Jules API endpoint' },
    {
      env: 'JULES_POLL_MS',
      purpose: 'first poll delay and cap in ms (default 15000:60000)',
      problem: (value) => pollSettingProblem(value)[0],
    },
    OUTAGE_SETTING,
    ...GEMINI_SETTINGS.map((s) =>
      s.env === 'GEMINI_API_KEY'
        ? { ...s, purpose: 'Gemini plans, judges and resolves merge conflicts' }
        : s,
    ),
  ],
  needs: (settings, repo) => [
    ...geminiNeeds(
      settings.model,
      'the jules worker also needs Gemini, which plans, judges and resolves merge conflicts',
    ),
    ...(repo !== undefined && envValue(settings.env, 'JULES_SOURCE') === ''
      ? julesSourceProblem(repo.origin)
      : []),
  ],
  roles: async (config, workspace, settings, options) => {
    const [{ geminiModel, modelHooks }, build, { LlmPlanner }, { LlmWorker }, { originPublisher }] =
      await Promise.all([
        import('./gemini-model.js'),
        import('./jules-build.js'),
        import('../../engine/models/llm-planner.js'),
        import('../../engine/models/llm-worker.js'),
        import('../wiring/origin-publisher.js'),
      ]);
    const model = geminiModel(config, settings);
    const { env } = settings;
    const baseUrl = envValue(env, 'JULES_BASE_URL');
    const source = envValue(env, 'JULES_SOURCE');
    const pollMs = pollSetting(envValue(env, 'JULES_POLL_MS'));
    const worker = build.julesWorker(
      config,
      workspace,
      {
        apiKey: envValue(env, 'JULES_API_KEY'),
        ...(baseUrl === '' ? {} : { baseUrl }),
        ...(source === '' ? {} : { source }),
        ...(pollMs === undefined ? {} : { pollMs }),
        outageMs: build.outageMs(config, envValue(env, 'MAKER_JULES_OUTAGE_S')),
      },
      // Merge conflicts are integrated by the model: Jules is not asked to resolve them.
      new LlmWorker(model, workspace),
      options?.publisher ?? originPublisher(workspace),
    );
    return { planner: new LlmPlanner(model), worker, ...modelHooks(model) };
  },
});
