import { existsSync, statSync } from 'node:fs';
import { accessProblems, accessSettingProblem } from '../wiring/model-access.js';
import type { ModelSettings } from '../settings.js';
import { defineWorkerKind, type WorkerSetting } from './kind.js';

/**
 * The settings of a run's Gemini model (the gemini kind's, and the jules kind's planner's), as
 * help and `maker doctor` list them. They are read into `Settings.model` (app/settings.ts), where
 * the surfaces' choices go over them: check a value there, not with a `problem` here, which sees
 * the environment only (not `--model-access` or `--replay`).
 */
export const GEMINI_SETTINGS: readonly WorkerSetting[] = [
  {
    env: 'GEMINI_API_KEY',
    purpose: 'Gemini plans, writes, judges and reviews (or GOOGLE_API_KEY)',
  },
  {
    env: 'GOOGLE_GENAI_USE_VERTEXAI',
    purpose: 'true: Vertex AI instead, with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION',
  },
  {
    env: 'MAKER_MODEL_ACCESS',
    purpose: 'key, vertex or gemini-cli: how to reach Gemini (as --model-access)',
  },
  { env: 'MAKER_RECORD', purpose: 'record every model exchange as files in this directory' },
  { env: 'MAKER_REPLAY', purpose: 'answer from a recording instead (as --replay)' },
];

/**
 * What a run's Gemini model needs: its recording when answers are replayed, else a model access
 * (and valid `MAKER_…_S` deadlines). `purpose` says what the kind uses Gemini for.
 */
export function geminiNeeds(model: ModelSettings, purpose: string): string[] {
  const { replay } = model;
  if (replay === '')
    return [
      ...accessSettingProblem(model.access),
      ...accessProblems(model.access, purpose),
      ...model.waitProblems,
    ];
  return existsSync(replay) && statSync(replay).isDirectory()
    ? []
    : [
        `The recording to replay, ${replay}, is not a directory: give the directory MAKER_RECORD wrote.`,
      ];
}

/** `--worker gemini`: Gemini plans, writes each candidate as file edits, and judges. */
export const gemini = defineWorkerKind({
  name: 'gemini',
  summary:
    'Gemini writes each candidate as file edits (needs a model access: a Gemini API key, Vertex AI, or your own signed-in `gemini`)',
  simulated: false,
  settings: GEMINI_SETTINGS,
  needs: (settings) =>
    geminiNeeds(settings.model, 'the gemini worker plans, writes and judges with Gemini'),
  roles: async (config, workspace, settings, options) => {
    const [{ geminiModel, modelHooks }, { LlmPlanner }, { LlmWorker }] = await Promise.all([
      import('./gemini-model.js'),
      import('../../engine/models/llm-planner.js'),
      import('../../engine/models/llm-worker.js'),
    ]);
    // A model given by the caller (a benchmark's) instead of the run's own.
    const model = options?.model ?? geminiModel(config, settings);
    return {
      planner: new LlmPlanner(model),
      worker: new LlmWorker(
        model,
        workspace,
        options?.editFormat === undefined ? {} : { editFormat: options.editFormat },
      ),
      ...modelHooks(model),
    };
  },
});
