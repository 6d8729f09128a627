import { existsSync, statSync } from 'node:fs';
import { GeminiModel } from '../../adapters/gemini/gemini-model.js';
import { RetryingModel } from '../../adapters/gemini/retrying-model.js';
import { GeminiCliModel } from '../../adapters/gemini-cli/gemini-cli-model.js';
import { RecordingModel } from '../../adapters/replay/recording-model.js';
import { ReplayModel } from '../../adapters/replay/replay-model.js';
import type { GitWorkspace } from '../../adapters/git/git-workspace.js';
import { pacedPlanner, pacedWorker } from '../../adapters/sim/paced.js';
import { SimPlanner, SimWorker } from '../../adapters/sim/project-sim.js';
import { environmentSecrets, OutputRedactor } from '../../core/credential-redaction.js';
import { modelWaitsFrom } from '../../core/deadlines.js';
import { UsageError } from '../../core/errors.js';
import type { JulesConfig, RunConfig } from '../../core/tree/schema.js';
import type { Roles } from '../../engine/maker-engine.js';
import { LlmPlanner } from '../../engine/models/llm-planner.js';
import { LlmWorker, type EditFormat } from '../../engine/models/llm-worker.js';
import { RedactingModel } from '../../engine/models/redacting-model.js';
import type { LanguageModel } from '../../ports/language-model.js';
import type { WaitReporter } from '../../ports/waits.js';
import type { Planner } from '../../ports/planner.js';
import type { RefPublisher } from '../../ports/ref-publisher.js';
import type { Worker } from '../../ports/worker.js';
import { originPublisher } from './origin-publisher.js';
import { envValue, replayDir, secretsOf, type Env } from '../env.js';
import {
  fakeJulesWorker,
  julesSourceProblem,
  julesWorker,
  outageMs,
  outageSettingProblem,
  pollSetting,
  pollSettingProblem,
} from './jules-wiring.js';
import {
  DEFAULT_MODEL,
  WORKER_FACTS,
  type WorkerFacts,
  type WorkerName,
} from './worker-catalogue.js';
import {
  ACCESS_HOW,
  accessChecks,
  accessHow,
  accessProblems,
  accessSettingProblem,
  apiKeyOf,
  chooseAccess,
  findOnPath,
  forcedAccess,
  vertexOf,
} from './model-access.js';

export {
  DEFAULT_MODEL,
  WORKER_NAMES,
  describeWorkers,
  kindsWhere,
  type WorkerFacts,
  type WorkerName,
} from './worker-catalogue.js';

/** What the repository looks like before a run starts (read without changing anything). */
export interface RepoFacts {
  /** The URL of its `origin` remote, if any. */
  readonly origin?: string | undefined;
}

/** How roles are built beyond the run's configuration. */
export interface RoleOptions {
  /** Simulated kinds: every simulated call waits this long (ms), so a person can watch the run. */
  readonly paceMs?: number | undefined;
  /** The run's one publisher (its GitHub repository's), which a worker that pushes uses too. */
  readonly publisher?: Pick<RefPublisher, 'publish'> | undefined;
  /** `jules-fake` on the local fake GitHub: the bare repository the fake Jules reads. */
  readonly sourceGitDir?: string | undefined;
  /**
   * The model the gemini kind plans, writes and judges with, instead of Gemini's (benchmarks:
   * `maker bench product` runs the default path on the realistic fake model).
   */
  readonly model?: LanguageModel | undefined;
  /** How the gemini kind's worker asks for files (benchmarks: `maker bench product --edit-format`). */
  readonly editFormat?: EditFormat | undefined;
}

/**
 * One kind of worker, everything the surfaces need to know about it: its facts (what it is, whether
 * its results are simulated, the settings it takes), what it needs before a run may start, and how
 * its roles are built. Surfaces look kinds up in {@link WORKERS}; they never branch on worker names.
 */
export interface WorkerKind extends WorkerFacts {
  /**
   * Everything missing before a run of this kind can start or resume, as sentences naming the fix;
   * empty when it can. Keys always; with `repo` (read before any side effect), what the repository
   * must offer too (a source Jules can use).
   */
  problems(env: Env, repo?: RepoFacts): string[];
  /** The planner and worker for a run's configuration (call after {@link problems} is empty). */
  roles(config: RunConfig, workspace: GitWorkspace, env: Env, options?: RoleOptions): Roles;
}

const JULES_SETTING = {
  env: 'JULES_API_KEY',
  how: 'In a terminal: export JULES_API_KEY=… (from the Jules settings page, https://jules.google.com/settings); in Gemini CLI: gemini extensions config maker "Jules API key".',
};

function missing(env: Env, setting: { env: string; how: string }, purpose: string): string[] {
  return envValue(env, setting.env) === ''
    ? [`${setting.env} is not set: ${purpose}. ${setting.how}`]
    : [];
}

function simRoles(config: RunConfig, options: RoleOptions = {}): { planner: Planner; sim: Worker } {
  const sim = { seed: config.seed, ...config.sim };
  const pace = options.paceMs ?? 0;
  return pace > 0
    ? {
        planner: pacedPlanner(new SimPlanner(sim), pace),
        sim: pacedWorker(new SimWorker(sim), pace),
      }
    : { planner: new SimPlanner(sim), sim: new SimWorker(sim) };
}

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
  return Object.assign(redacting, {
    ...(model.close === undefined ? {} : { close: () => model.close?.() ?? Promise.resolve() }),
    ...(model.watchWaits === undefined
      ? {}
      : { watchWaits: (report: WaitReporter) => model.watchWaits?.(report) }),
  });
}

/** The redactor of every prompt: the environment's secrets and MAKER's keys, by value. */
function promptRedactor(env: Env): OutputRedactor {
  return new OutputRedactor([
    ...environmentSecrets(env),
    ...secretsOf(env).map((value) => ({ name: 'MAKER_KEY', value })),
  ]);
}

/** A run's model: closed when the run ends, and reporting its waits to the run. */
export type RunModel = LanguageModel & {
  close?: () => Promise<void>;
  watchWaits?: (report: WaitReporter) => void;
};

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

/** Gemini is needed unless its answers are replayed (then the recording is); the access otherwise. */
function geminiProblems(env: Env, purpose: string): string[] {
  const replay = replayDir(env);
  if (replay === '')
    return [
      ...accessSettingProblem(env),
      ...accessProblems(env, purpose),
      ...modelWaitsFrom((n) => envValue(env, n)).problems,
    ];
  return existsSync(replay) && statSync(replay).isDirectory()
    ? []
    : [
        `The recording to replay, ${replay}, is not a directory: give the directory MAKER_RECORD wrote.`,
      ];
}

const sim: WorkerKind = {
  ...WORKER_FACTS.sim,
  problems: () => [],
  roles: (config, _workspace, _env, options) => {
    const { planner, sim: worker } = simRoles(config, options);
    return { planner, worker };
  },
};

const gemini: WorkerKind = {
  ...WORKER_FACTS.gemini,
  problems: (env) => geminiProblems(env, 'the gemini worker plans, writes and judges with Gemini'),
  roles: (config, workspace, env, options) => {
    // A model given by the caller (a benchmark's) is the caller's to close.
    const model: RunModel = options?.model ?? geminiModel(config, env);
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
};

/** What roles pass on of their model: its close, and where it reports waits. */
function modelHooks(model: RunModel): Pick<Roles, 'close' | 'watchWaits'> {
  return {
    ...(model.close === undefined ? {} : { close: () => model.close?.() ?? Promise.resolve() }),
    ...(model.watchWaits === undefined
      ? {}
      : { watchWaits: (report: WaitReporter) => model.watchWaits?.(report) }),
  };
}

const jules: WorkerKind = {
  ...WORKER_FACTS.jules,
  problems: (env, repo) => [
    ...missing(env, JULES_SETTING, 'the jules worker starts Jules sessions with it'),
    ...geminiProblems(
      env,
      'the jules worker also needs Gemini, which plans, judges and resolves merge conflicts',
    ),
    ...(repo !== undefined && envValue(env, 'JULES_SOURCE') === ''
      ? julesSourceProblem(repo.origin)
      : []),
    ...pollSettingProblem(envValue(env, 'JULES_POLL_MS')),
    ...outageSettingProblem(envValue(env, 'MAKER_JULES_OUTAGE_S')),
  ],
  roles: (config, workspace, env, options) => {
    const model = geminiModel(config, env);
    const baseUrl = envValue(env, 'JULES_BASE_URL');
    const source = envValue(env, 'JULES_SOURCE');
    const pollMs = pollSetting(envValue(env, 'JULES_POLL_MS'));
    const worker = julesWorker(
      config,
      workspace,
      {
        apiKey: envValue(env, 'JULES_API_KEY'),
        ...(baseUrl === '' ? {} : { baseUrl }),
        ...(source === '' ? {} : { source }),
        ...(pollMs === undefined ? {} : { pollMs }),
        outageMs: outageMs(config, envValue(env, 'MAKER_JULES_OUTAGE_S')),
      },
      // Merge conflicts are integrated by the model: Jules is not asked to resolve them.
      new LlmWorker(model, workspace),
      options?.publisher ?? originPublisher(workspace),
    );
    return { planner: new LlmPlanner(model), worker, ...modelHooks(model) };
  },
};

const julesFake: WorkerKind = {
  ...WORKER_FACTS['jules-fake'],
  problems: (env) => outageSettingProblem(envValue(env, 'MAKER_JULES_OUTAGE_S')),
  roles: (config, workspace, env, options) => {
    const { planner, sim: simWorker } = simRoles(config, options);
    const { worker, close } = fakeJulesWorker(config, workspace, simWorker, {
      outageMs: outageMs(config, envValue(env, 'MAKER_JULES_OUTAGE_S')),
      publisher: options?.publisher,
      sourceGitDir: options?.sourceGitDir,
    });
    return { planner, worker, close };
  },
};

/** Every worker kind, by name. */
export const WORKERS: Readonly<Record<WorkerName, WorkerKind>> = {
  gemini,
  jules,
  'jules-fake': julesFake,
  sim,
};

/**
 * The worker a run uses: the one asked for, else `gemini` when a Gemini key is set. Never a
 * simulation unless asked: with neither, undefined (the surface refuses, naming the ways forward).
 */
export function chooseWorker(asked: WorkerName | undefined, env: Env): WorkerKind | undefined {
  if (asked !== undefined) return WORKERS[asked];
  // An access asked for by name is the gemini worker's, available or not (its problems say why not).
  return chooseAccess(env) === undefined && forcedAccess(env) === undefined && replayDir(env) === ''
    ? undefined
    : gemini;
}

/** How a surface words the ways forward when no worker was chosen. */
export interface NoWorkerWords {
  /** Asking for a worker by name: `--worker sim`, `pass worker "sim"`. */
  readonly pick: (worker: WorkerName) => string;
  /** Setting the Gemini key where this surface reads it. */
  readonly setKey: string;
  readonly demo: string;
}

/** Why no worker was chosen, and the ways forward, in a surface's own words. */
export function noWorkerMessage(words: NoWorkerWords, env: Env): string {
  const { pick, setKey, demo } = words;
  return [
    'No worker was chosen and GEMINI_API_KEY is not set, Vertex AI is not configured and no `gemini` is on the PATH, so nothing was started (MAKER never falls back to a simulation on its own). Ways forward:',
    `  - ${setKey} (a key from https://aistudio.google.com/apikey): runs then use the gemini worker (${pick('gemini')} asks for it by name);`,
    `  - or ${ACCESS_HOW.vertex};`,
    `  - or ${accessHow('gemini-cli', env)};`,
    `  - ${pick('jules')}, with JULES_API_KEY and one of those model accesses, to have Jules write the code;`,
    `  - ${pick('sim')} for a simulation: placeholder files, no model calls, marked "simulated" everywhere;`,
    `  - ${demo} to watch the whole pipeline offline, in a fresh temporary repository.`,
  ].join('\n');
}

/** A run's Jules settings: the chosen ones over the kind's defaults; refused for kinds without them. */
export function julesSettings(
  kind: WorkerKind,
  chosen: Partial<JulesConfig> | undefined,
): JulesConfig | undefined {
  if (kind.julesDefaults === undefined) {
    if (chosen !== undefined && Object.keys(chosen).length > 0)
      throw new UsageError(
        `Jules settings apply to the ${Object.values(WORKERS)
          .filter((k) => k.julesDefaults !== undefined)
          .map((k) => k.name)
          .join(' and ')} workers only, not to ${kind.name}.`,
      );
    return undefined;
  }
  return { ...kind.julesDefaults, ...chosen };
}
