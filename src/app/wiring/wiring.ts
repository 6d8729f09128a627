import { join } from 'node:path';
import { GitWorkspace } from '../../adapters/git/git-workspace.js';
import { checkLimits } from '../../adapters/sandbox/limits.js';
import { Journal } from '../../adapters/state/journal.js';
import { makerStateFile } from '../../adapters/state/state-file.js';
import {
  CALIBRATION_FILE_NAME,
  JOURNAL_FILE_NAME,
  STATE_FILE_NAME,
  STATE_LOG_FILE_NAME,
} from '../../core/workspace-files.js';
import { environmentSecrets, outputRedactor } from '../../core/credential-redaction.js';
import { ConfigError, UsageError, makeRedactor } from '../../core/errors.js';
import { samplingProblem, samplingTable, type SamplingOverrides } from '../../core/sampling.js';
import { PRESETS, type Confidence } from '../../core/tree/presets.js';
import type { RunConfig } from '../../core/tree/schema.js';
import { MakerEngine, type MakerEngineDeps, type Roles } from '../../engine/maker-engine.js';
import { settingsOfRun, type Settings } from '../settings.js';
import {
  DEFAULT_MODEL,
  kindOptions,
  workerKind,
  type OptionChoices,
  type RoleOptions,
} from '../workers/index.js';

export { DEFAULT_MODEL };

/** A run configuration from the few choices a person makes; everything else follows the preset and the worker's kind. */
export function runConfig(choices: {
  /** The worker kind's name (one of `WORKER_NAMES`). */
  worker: string;
  confidence?: Confidence;
  k?: number;
  hitl: RunConfig['hitl'];
  seed?: number;
  maxDepth?: number;
  maxNodes?: number;
  concurrency?: number;
  model?: string;
  /** How the run reaches Gemini (models that need none, simulated ones, record nothing). */
  modelAccess?: RunConfig['modelAccess'];
  defaultBranch: string;
  sim?: RunConfig['sim'];
  runChecks?: boolean;
  /** The dependency install for checks (`--install`; `''`: none; absent: the lock files' default). */
  install?: string;
  /** What candidates may do beyond the defaults (executables, symlinks, CI workflows). */
  allow?: Partial<RunConfig['allow']>;
  maxFileBytes?: number;
  /**
   * The worker kind's own options chosen, by their name (`{ jules: { plan: 'pro' } }`; kinds that
   * take them only): kept over the kind's defaults.
   */
  workerOptions?: OptionChoices;
  /** Sampling chosen over the model's table (`--temperature`, `--thinking-budget`, `--thinking-level`). */
  sampling?: SamplingOverrides;
}): RunConfig {
  const kind = workerKind(choices.worker);
  const confidence = choices.confidence ?? 'medium';
  const preset = PRESETS[confidence];
  const k = choices.k ?? preset.k;
  const workerOptions = kindOptions(kind, choices.workerOptions, {
    named: (name) => `The ${name} options`,
  });
  const model = kind.simulated ? undefined : (choices.model ?? DEFAULT_MODEL);
  const overrides = choices.sampling ?? {};
  const problem = samplingProblem(model, overrides);
  if (problem !== undefined && Object.keys(overrides).length > 0) {
    if (model === undefined)
      throw new UsageError(
        `The ${kind.name} worker samples no model: --temperature and --thinking-… apply to Gemini runs only.`,
      );
    throw new UsageError(problem);
  }
  return {
    worker: kind.name,
    planner: kind.simulated ? 'sim' : 'gemini',
    simulated: kind.simulated,
    ...(model === undefined
      ? {}
      : { model, sampling: { overrides, roles: samplingTable(model, overrides) } }),
    ...(kind.simulated || choices.modelAccess === undefined
      ? {}
      : { modelAccess: choices.modelAccess }),
    confidence,
    ...preset,
    k,
    maxCandidates: Math.max(preset.maxCandidates, 4 * k),
    maxBallots: Math.max(preset.maxBallots, 5 * k),
    maxDepth: choices.maxDepth ?? 3,
    maxNodes: choices.maxNodes ?? 60,
    maxChangedLines: 400,
    // Model calls at once. Jules sessions are not counted: the plan's cap bounds them.
    concurrency: choices.concurrency ?? 4,
    seed: choices.seed ?? 1,
    hitl: choices.hitl,
    // Checks run by default (sandboxed; where no sandbox works, the result is unverified).
    runChecks: choices.runChecks ?? true,
    ...(choices.install === undefined ? {} : { install: choices.install }),
    allow: { executables: [], symlinks: [], workflows: false, ...choices.allow },
    maxFileBytes: choices.maxFileBytes ?? 1_000_000,
    defaultBranch: choices.defaultBranch,
    ...(choices.sim === undefined ? {} : { sim: choices.sim }),
    ...(workerOptions === undefined ? {} : { workerOptions }),
  };
}

/**
 * The planner and worker a run's configuration names, built by its worker kind from the
 * environment. Throws a {@link ConfigError} listing everything the kind still needs. `paceMs`
 * (simulated kinds only) makes every simulated call wait that long, so a person can watch.
 */
export async function rolesFor(
  config: RunConfig,
  workspace: GitWorkspace,
  settings: Settings,
  options: RoleOptions = {},
): Promise<Roles> {
  const kind = workerKind(config.worker);
  const ofRun = settingsOfRun(settings, config);
  const problems = kind.problems(ofRun);
  if (problems.length > 0) throw new ConfigError(cannotStart(kind.name, problems));
  return kind.roles(config, workspace, ofRun, options);
}

/** Everything that stops a run, as one message naming the worker the person chose. */
export function cannotStart(worker: string, problems: readonly string[]): string {
  return `A run with the ${worker} worker cannot start yet:\n${problems.map((p) => `  - ${p}`).join('\n')}`;
}

/** What a workspace reads of the settings: its environment, its sandbox, the tests' seams. */
export type WorkspaceSettings = Pick<
  Settings,
  'env' | 'sandbox' | 'seam' | 'gitHelperSeam' | 'checkMemoryMiB'
>;

/**
 * Opens (or creates) the repository at `dir` and keeps MAKER's files out of git's way; its checks
 * look for their sandbox where `settings` say, and its steps are the process's checkpoints.
 */
export async function openWorkspace(
  dir: string,
  create: boolean,
  settings: WorkspaceSettings,
): Promise<GitWorkspace> {
  const { env, seam: checkpoint, gitHelperSeam: launcherSeam, checkMemoryMiB } = settings;
  const workspace = await GitWorkspace.open(dir, {
    create,
    env,
    where: settings.sandbox,
    ...(checkpoint === undefined ? {} : { checkpoint }),
    ...(launcherSeam === undefined ? {} : { launcherSeam }),
    ...(checkMemoryMiB === undefined ? {} : { checkLimits: checkLimits(checkMemoryMiB) }),
  });
  await workspace.excludeLocally([
    STATE_FILE_NAME,
    STATE_LOG_FILE_NAME,
    JOURNAL_FILE_NAME,
    `.${STATE_FILE_NAME}.tmp`,
    `.${STATE_LOG_FILE_NAME}.tmp`,
    `${STATE_FILE_NAME}.bak`,
    `${STATE_FILE_NAME}.bak.tmp`,
    `${STATE_FILE_NAME}.lock`,
    `${STATE_FILE_NAME}.lock.*`,
    CALIBRATION_FILE_NAME,
  ]);
  return workspace;
}

/** An engine over the repository at `dir`, its state file and journal, with the given roles. */
export function engineFor(
  dir: string,
  workspace: GitWorkspace,
  roles: MakerEngineDeps['roles'],
  settings: Pick<Settings, 'secrets' | 'env' | 'seam'>,
  remote?: MakerEngineDeps['remote'],
): MakerEngine {
  const { secrets, env, seam: checkpoint } = settings;
  const journal = new Journal(join(dir, JOURNAL_FILE_NAME), secrets);
  return new MakerEngine({
    workspace,
    roles,
    store: makerStateFile(dir, makeRedactor(secrets), {
      ...(checkpoint === undefined ? {} : { checkpoint }),
    }),
    journal: (event) => journal.append(event),
    secrets,
    // What checks print loses the person's secrets (the environment's, read once here) and MAKER's.
    redactOutput: outputRedactor(environmentSecrets(env), secrets),
    ...(checkpoint === undefined ? {} : { checkpoint }),
    ...(remote === undefined ? {} : { remote }),
  });
}
