import { GeminiModel } from '../../adapters/gemini/gemini-model.js';
import { RetryingModel } from '../../adapters/gemini/retrying-model.js';
import { GeminiCliModel } from '../../adapters/gemini-cli/gemini-cli-model.js';
import { RecordingModel } from '../../adapters/replay/recording-model.js';
import { ReplayModel } from '../../adapters/replay/replay-model.js';
import { environmentSecrets, OutputRedactor } from '../../core/credential-redaction.js';
import type { RunConfig } from '../../core/tree/schema.js';
import type { Roles } from '../../engine/maker-engine.js';
import { RedactingModel } from '../../engine/models/redacting-model.js';
import type { LanguageModel } from '../../ports/language-model.js';
import type { WaitReporter } from '../../ports/waits.js';
import type { Settings } from '../settings.js';
import { accessChecks } from '../wiring/model-access.js';
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
 * The run's Gemini model, as the settings ask: answers replayed from `MAKER_REPLAY` (no key,
 * no server), else through the run's model access (recorded in its configuration; runs from before
 * it was recorded used the key): the Gemini API with a key, Vertex AI, or the person's own `gemini`.
 * With `MAKER_RECORD`, every exchange is also recorded there.
 */
export function geminiModel(
  config: Partial<Pick<RunConfig, 'model' | 'modelAccess' | 'concurrency'>>,
  settings: Settings,
): RunModel {
  const name = config.model ?? DEFAULT_MODEL;
  const { replay, record } = settings.model;
  const model: RunModel =
    replay !== '' ? new ReplayModel(replay, name) : accessModel(name, config, settings);
  const recorded =
    record === '' ? model : new RecordingModel(model, record, { secrets: settings.secrets });
  // No prompt carries the person's secrets or MAKER's keys, whatever path a text came by.
  const redacting = new RedactingModel(recorded, promptRedactor(settings));
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
function promptRedactor(settings: Settings): OutputRedactor {
  return new OutputRedactor([
    ...environmentSecrets(settings.env),
    ...settings.secrets.map((value) => ({ name: 'MAKER_KEY', value })),
  ]);
}

/**
 * The model of an access, with its retries and waits ({@link RetryingModel}) and the deadlines of
 * the `MAKER_…_S` settings.
 */
function accessModel(
  name: string,
  config: Partial<Pick<RunConfig, 'modelAccess' | 'concurrency'>>,
  settings: Settings,
): RunModel {
  const { baseUrl, waits, access: found } = settings.model;
  const access = config.modelAccess ?? 'key';
  const inner =
    access === 'gemini-cli'
      ? new GeminiCliModel({
          command: found.gemini ?? 'gemini',
          model: name,
          env: settings.env,
          waits,
          ...(config.concurrency === undefined ? {} : { concurrency: config.concurrency }),
          onNotice: (text) => process.stderr.write(`maker: note: ${text}\n`),
        })
      : access === 'vertex'
        ? new GeminiModel({ model: name, apiKey: '', vertex: found.vertex, waits })
        : new GeminiModel({
            model: name,
            apiKey: found.key?.value ?? '',
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
export function exactSamplingModel(name: string, settings: Settings): RunModel | undefined {
  const found = accessChecks(settings.model.access).find((c) => c.ok && c.access !== 'gemini-cli');
  return found === undefined
    ? undefined
    : accessModel(name, { modelAccess: found.access === 'vertex' ? 'vertex' : 'key' }, settings);
}
