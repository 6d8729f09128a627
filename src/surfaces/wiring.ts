import { join } from 'node:path';
import { GitWorkspace } from '../adapters/git/git-workspace.js';
import { Journal } from '../adapters/state/journal.js';
import {
  JOURNAL_FILE_NAME,
  STATE_FILE_NAME,
  STATE_LOG_FILE_NAME,
  makerStateFile,
} from '../adapters/state/state-file.js';
import { ConfigError, makeRedactor } from '../core/errors.js';
import { PRESETS, type Confidence } from '../core/tree/presets.js';
import type { JulesConfig, Run, RunConfig } from '../core/tree/schema.js';
import { MakerEngine, type MakerEngineDeps, type Roles } from '../engine/maker-engine.js';
import { envValue, secretsOf, type Env } from './env.js';
import { CALIBRATION_FILE_NAME } from './calibration.js';
import { DEFAULT_MODEL, WORKERS, julesSettings, type RoleOptions } from './workers.js';

export { DEFAULT_MODEL };
export { envValue, secretsOf, type Env };

/** A run configuration from the few choices a person makes; everything else follows the preset and the worker's kind. */
export function runConfig(choices: {
  worker: RunConfig['worker'];
  confidence?: Confidence;
  k?: number;
  hitl: RunConfig['hitl'];
  seed?: number;
  maxDepth?: number;
  maxNodes?: number;
  concurrency?: number;
  model?: string;
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
}): RunConfig {
  const kind = WORKERS[choices.worker];
  const confidence = choices.confidence ?? 'medium';
  const preset = PRESETS[confidence];
  const k = choices.k ?? preset.k;
  const jules = julesSettings(kind, choices.jules);
  return {
    worker: kind.name,
    planner: kind.simulated ? 'sim' : 'gemini',
    simulated: kind.simulated,
    ...(kind.simulated ? {} : { model: choices.model ?? DEFAULT_MODEL }),
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
    runChecks: choices.runChecks ?? false,
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
export function rolesFor(
  config: RunConfig,
  workspace: GitWorkspace,
  env: Env,
  options: RoleOptions = {},
): Roles {
  const kind = WORKERS[config.worker];
  const problems = kind.problems(env);
  if (problems.length > 0) throw new ConfigError(cannotStart(kind.name, problems));
  return kind.roles(config, workspace, env, options);
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
  const workspace = await GitWorkspace.open(dir, {
    create,
    env,
    ...(checkpoint === undefined ? {} : { checkpoint }),
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
  roles: Roles | ((config: RunConfig, run?: Run) => Roles),
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
  const spec = envValue(env, 'MAKER_CRASH_AT');
  if (spec === '') return undefined;
  const [name, nth] = spec.split('@');
  let seen = 0;
  const at = Number(nth ?? '1');
  return (step) => {
    if (name !== '*' && name !== step) return;
    seen += 1;
    if (seen === at) process.kill(process.pid, 'SIGKILL');
  };
}
