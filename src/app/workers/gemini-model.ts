import { GeminiModel } from '../../adapters/gemini/gemini-model.js';
import { RetryingModel } from '../../adapters/gemini/retrying-model.js';
import { GeminiCliModel } from '../../adapters/gemini-cli/gemini-cli-model.js';
import { RecordingModel } from '../../adapters/replay/recording-model.js';
import { ReplayModel } from '../../adapters/replay/replay-model.js';
import { environmentSecrets, OutputRedactor } from '../../core/credential-redaction.js';
import { modelWaitsFrom } from '../../core/deadlines.js';
import type { RunConfig } from '../../core/tree/schema.js';
import type { Roles } from '../../engine/maker-engine.js';
import { RedactingModel } from '../../engine/models/redacting-model.js';
import type { LanguageModel } from '../../ports/language-model.js';
import type { WaitReporter } from '../../ports/waits.js';
import { envValue, replayDir, secretsOf, type Env } from '../env.js';
import { accessChecks, apiKeyOf, findOnPath, vertexOf } from '../wiring/model-access.js';
import { DEFAULT_MODEL } from './kind.js';

/**
 * A run's Gemini model, built when its roles are (the gemini and jules kinds', calibration's and the
 * Hanoi bench's): Gemini's clients are loaded only then.
 */

/** A run's model: closed when the run ends, and reporting its waits to the run. */
export type RunModel = LanguageModel & {
  close?: () => Promise<void>;
  watchWaits?: (report: WaitReporter) => void;
};

/**
 * The run's Gemini model, as the environment asks: answers replayed from `MAKER_REPLAY` (no key,
 * no server), else through the run's model access (recorded in its configuration; runs from before
 * it was recorded used the key): the Gemini API with a key, Vertex AI, or the person's own `gemini`.
 * With `MAKER_RECORD`, every exchange is also recorded there.
 */
export function geminiModel(
  config: Partial<Pick<RunConfig, 'model' | 'modelAccess' | 'concurrency'>>,
  env: Env,
): RunModel {
  const name = config.model ?? DEFAULT_MODEL;
  const replay = replayDir(env);
  const model: RunModel =
    replay !== '' ? new ReplayModel(replay, name) : accessModel(name, config, env);
  const record = envValue(env, 'MAKER_RECORD');
  const recorded =
    record === '' ? model : new RecordingModel(model, record, { secrets: secretsOf(env) });
  // No prompt carries the person's secrets or MAKER's keys, whatever path a text came by.
  const redacting = new RedactingModel(recorded, promptRedactor(env));
  return Object.assign(redacting, modelHooks(model));
}

/** What roles pass on of their model: its close, and where it reports waits. */
export function modelHooks(model: RunModel): Pick<Roles, 'close' | 'watchWaits'> {
  return {
    ...(model.close === undefined ? {} : { close: () => model.close?.() ?? Promise.resolve() }),
    ...(model.watchWaits === undefined
      ? {}
      : { watchWaits: (report: WaitReporter) => model.watchWaits?.(report) }),
  };
}

/** The redactor of every prompt: the environment's secrets and MAKER's keys, by value. */
function promptRedactor(env: Env): OutputRedactor {
  return new OutputRedactor([
    ...environmentSecrets(env),
    ...secretsOf(env).map((value) => ({ name: 'MAKER_KEY', value })),
  ]);
}

/**
 * The model of an access, with its retries and waits ({@link RetryingModel}) and the deadlines of
 * the `MAKER_…_S` settings.
 */
function accessModel(
  name: string,
  config: Partial<Pick<RunConfig, 'modelAccess' | 'concurrency'>>,
  env: Env,
): RunModel {
  const baseUrl = envValue(env, 'GOOGLE_GEMINI_BASE_URL');
  const { waits } = modelWaitsFrom((n) => envValue(env, n));
  const access = config.modelAccess ?? 'key';
  const inner =
    access === 'gemini-cli'
      ? new GeminiCliModel({
          command: findOnPath('gemini', env) ?? 'gemini',
          model: name,
          env,
          waits,
          ...(config.concurrency === undefined ? {} : { concurrency: config.concurrency }),
          onNotice: (text) => process.stderr.write(`maker: note: ${text}\n`),
        })
      : access === 'vertex'
        ? new GeminiModel({ model: name, apiKey: '', vertex: vertexOf(env), waits })
        : new GeminiModel({
            model: name,
            apiKey: apiKeyOf(env)?.value ?? '',
            ...(baseUrl === '' ? {} : { baseUrl }),
            waits,
          });
  return new RetryingModel(inner, {
    service: access === 'key' ? 'gemini' : access,
    waits,
  });
}

/**
 * A Gemini model at exact sampling settings (temperature, thinking budget), for a benchmark that
 * measures one: through a key or Vertex AI, never Gemini CLI, which takes no option for them.
 * Undefined when neither access is set up.
 */
export function exactSamplingModel(name: string, env: Env): RunModel | undefined {
  const found = accessChecks(env).find((c) => c.ok && c.access !== 'gemini-cli');
  return found === undefined
    ? undefined
    : accessModel(name, { modelAccess: found.access === 'vertex' ? 'vertex' : 'key' }, env);
}
