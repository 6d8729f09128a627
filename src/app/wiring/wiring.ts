import { writeSync } from 'node:fs';
import { join } from 'node:path';
import { GitWorkspace } from '../../adapters/git/git-workspace.js';
import type { LauncherSeam } from '../../adapters/git/git-launcher.js';
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
import type { JulesConfig, RunConfig } from '../../core/tree/schema.js';
import { MakerEngine, type MakerEngineDeps, type Roles } from '../../engine/maker-engine.js';
import { envValue, secretsOf, type Env } from '../env.js';
import { DEFAULT_MODEL, julesSettings, workerKind, type RoleOptions } from '../workers/index.js';
import { MODEL_ACCESS_SETTING } from './model-access.js';

export { DEFAULT_MODEL };
export { envValue, secretsOf, type Env };

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
  /** Settings chosen over the worker's Jules defaults (kinds that take them only). */
  jules?: Partial<JulesConfig>;
  /** Sampling chosen over the model's table (`--temperature`, `--thinking-budget`, `--thinking-level`). */
  sampling?: SamplingOverrides;
}): RunConfig {
  const kind = workerKind(choices.worker);
  const confidence = choices.confidence ?? 'medium';
  const preset = PRESETS[confidence];
  const k = choices.k ?? preset.k;
  const jules = julesSettings(kind, choices.jules);
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
    ...(jules === undefined ? {} : { jules }),
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
  env: Env,
  options: RoleOptions = {},
): Promise<Roles> {
  const kind = workerKind(config.worker);
  // The access the run chose when it started is the one it keeps.
  const runEnv =
    config.modelAccess === undefined ? env : { ...env, [MODEL_ACCESS_SETTING]: config.modelAccess };
  const problems = kind.problems(runEnv);
  if (problems.length > 0) throw new ConfigError(cannotStart(kind.name, problems));
  return kind.roles(config, workspace, runEnv, options);
}

/** Everything that stops a run, as one message naming the worker the person chose. */
export function cannotStart(worker: string, problems: readonly string[]): string {
  return `A run with the ${worker} worker cannot start yet:\n${problems.map((p) => `  - ${p}`).join('\n')}`;
}

/** Opens (or creates) the repository at `dir` and keeps MAKER's files out of git's way. */
export async function openWorkspace(
  dir: string,
  create: boolean,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<GitWorkspace> {
  const checkpoint = crashSeam(env);
  const launcherSeam = gitHelperSeam(env);
  const workspace = await GitWorkspace.open(dir, {
    create,
    env,
    ...(checkpoint === undefined ? {} : { checkpoint }),
    ...(launcherSeam === undefined ? {} : { launcherSeam }),
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
  secrets: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
  remote?: MakerEngineDeps['remote'],
): MakerEngine {
  const journal = new Journal(join(dir, JOURNAL_FILE_NAME), secrets);
  const checkpoint = crashSeam(env);
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

/**
 * Crash tests only: `MAKER_CRASH_AT=<step>` (e.g. `land:read-tree`) makes this process SIGKILL itself
 * when it reaches that checkpoint; `<step>@<n>` at its nth time; `*@<n>` at the nth checkpoint of any
 * name. Checkpoints sit between the steps of multi-step operations, so a test reaches each of them
 * exactly, not by timing. Unset, it does nothing.
 */
export function crashSeam(
  env: Readonly<Record<string, string | undefined>>,
): ((step: string) => void) | undefined {
  const kill = seamAt(envValue(env, 'MAKER_CRASH_AT'), 'SIGKILL');
  // `MAKER_INTERRUPT_AT=<step>`: the same, with SIGINT (a person's Ctrl-C at that very step).
  const interrupt = seamAt(envValue(env, 'MAKER_INTERRUPT_AT'), 'SIGINT');
  const stop = stopSeam(envValue(env, 'MAKER_STOP_AT'));
  if (kill === undefined && interrupt === undefined && stop === undefined) return undefined;
  return (step) => (kill?.(step), interrupt?.(step), stop?.(step));
}

/** The checkpoints this process already stopped at (see {@link stopSeam}): once each. */
const stoppedAt = new Set<string>();

/**
 * Crash tests only: `MAKER_STOP_AT=<step>,<step>…` makes this process, the first time it reaches
 * each of those checkpoints, say so on stderr (`maker: stopped at <step>`) and stop itself
 * (SIGSTOP) until it is continued: a test copies what a kill there would leave, then lets the run
 * go on (one run for many kill points).
 */
function stopSeam(spec: string): ((step: string) => void) | undefined {
  if (spec === '') return undefined;
  const steps = new Set(spec.split(','));
  return (step) => {
    if (!steps.has(step) || stoppedAt.has(step)) return;
    stoppedAt.add(step);
    writeSync(2, `maker: stopped at ${step}\n`);
    process.kill(process.pid, 'SIGSTOP');
  };
}

function seamAt(spec: string, signal: NodeJS.Signals): ((step: string) => void) | undefined {
  if (spec === '') return undefined;
  const [name, nth] = spec.split('@');
  let seen = 0;
  const at = Number(nth ?? '1');
  return (step) => {
    if (name !== '*' && name !== step) return;
    seen += 1;
    if (seen === at) process.kill(process.pid, signal);
  };
}

/**
 * Tests only: `MAKER_KILL_GIT_HELPER_AT=<n>` SIGKILLs the git launcher's helper process right
 * after the nth one-off git command is handed to it (`<n>+`: after the nth and every one after),
 * as the out-of-memory killer would. Unset, it does nothing.
 */
export function gitHelperSeam(
  env: Readonly<Record<string, string | undefined>>,
): LauncherSeam | undefined {
  const spec = envValue(env, 'MAKER_KILL_GIT_HELPER_AT');
  const match = /^(\d+)(\+?)$/.exec(spec);
  if (match === null) return undefined;
  const at = Number(match[1]);
  const onward = match[2] === '+';
  return (n, helper) => {
    if (n === at || (onward && n > at)) helper.kill('SIGKILL');
  };
}
