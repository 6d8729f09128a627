import { join } from 'node:path';
import { GeminiModel } from '../adapters/gemini/gemini-model.js';
import { GitWorkspace } from '../adapters/git/git-workspace.js';
import { findSandbox, NO_SANDBOX } from '../adapters/sandbox/bwrap.js';
import { pacedPlanner, pacedWorker } from '../adapters/sim/paced.js';
import { SimPlanner, SimWorker } from '../adapters/sim/project-sim.js';
import { Journal } from '../adapters/state/journal.js';
import {
  JOURNAL_FILE_NAME,
  STATE_FILE_NAME,
  makerStateFile,
} from '../adapters/state/state-file.js';
import { ConfigError, makeRedactor, UsageError } from '../core/errors.js';
import { PRESETS, type Confidence } from '../core/tree/presets.js';
import type { JulesConfig, RunConfig } from '../core/tree/schema.js';
import { LlmPlanner } from '../engine/llm-planner.js';
import { LlmWorker } from '../engine/llm-worker.js';
import { MakerEngine, type Roles } from '../engine/maker-engine.js';
import type { Planner } from '../ports/planner.js';
import type { Worker } from '../ports/worker.js';
import {
  fakeJulesWorker,
  julesConfig,
  julesSourceOf,
  julesWorker,
  outageMs,
  pollSetting,
} from './jules-wiring.js';

export const DEFAULT_MODEL = 'gemini-2.5-flash';

/** A run configuration from the few choices a person makes; everything else follows the preset. */
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
  /** What candidates may do beyond the defaults (executables, symlinks, CI workflows). */
  allow?: Partial<RunConfig['allow']>;
  maxFileBytes?: number;
  /** Jules runs: settings chosen over the worker's defaults (see {@link julesConfig}). */
  jules?: Partial<JulesConfig>;
}): RunConfig {
  const confidence = choices.confidence ?? 'medium';
  const preset = PRESETS[confidence];
  const k = choices.k ?? preset.k;
  const offline = choices.worker === 'sim' || choices.worker === 'jules-fake';
  const jules =
    choices.worker === 'jules' || choices.worker === 'jules-fake'
      ? julesConfig(choices.worker, choices.jules)
      : undefined;
  if (jules === undefined && choices.jules !== undefined && Object.keys(choices.jules).length > 0)
    throw new UsageError(
      `Jules settings apply to the jules and jules-fake workers only, not to ${choices.worker}.`,
    );
  return {
    worker: choices.worker,
    planner: offline ? 'sim' : 'gemini',
    ...(offline ? {} : { model: choices.model ?? DEFAULT_MODEL }),
    confidence,
    ...preset,
    k,
    maxCandidates: Math.max(preset.maxCandidates, 4 * k),
    maxBallots: Math.max(preset.maxBallots, 5 * k),
    maxDepth: choices.maxDepth ?? 3,
    maxNodes: choices.maxNodes ?? 60,
    maxChangedLines: 400,
    // Sessions hold a paid slot while they run: leave room for the planner's and judges' calls.
    concurrency: choices.concurrency ?? (jules === undefined ? 4 : jules.concurrency + 2),
    seed: choices.seed ?? 1,
    hitl: choices.hitl,
    runChecks: choices.runChecks ?? false,
    allow: { executables: [], symlinks: [], workflows: false, ...choices.allow },
    maxFileBytes: choices.maxFileBytes ?? 1_000_000,
    defaultBranch: choices.defaultBranch,
    ...(choices.sim === undefined ? {} : { sim: choices.sim }),
    ...(jules === undefined ? {} : { jules }),
  };
}

/**
 * The planner and worker a run's configuration names, built from the environment's keys.
 * `paceMs` (simulated runs only) makes every simulated call wait that long, so a person can watch.
 */
export function rolesFor(
  config: RunConfig,
  workspace: GitWorkspace,
  env: Readonly<Record<string, string | undefined>>,
  options: { readonly paceMs?: number | undefined } = {},
): { planner: Planner; worker: Worker; close?: () => Promise<void> } {
  if (config.worker === 'sim' || config.worker === 'jules-fake') {
    const sim = { seed: config.seed, ...config.sim };
    const pace = options.paceMs ?? 0;
    const planner = pace > 0 ? pacedPlanner(new SimPlanner(sim), pace) : new SimPlanner(sim);
    const simWorker = pace > 0 ? pacedWorker(new SimWorker(sim), pace) : new SimWorker(sim);
    if (config.worker === 'sim') return { planner, worker: simWorker };
    const { worker, close } = fakeJulesWorker(config, workspace, simWorker, {
      outageMs: outageMs(config, envValue(env, 'MAKER_JULES_OUTAGE_S')),
    });
    return { planner, worker, close };
  }
  const apiKey = envValue(env, 'GEMINI_API_KEY');
  if (apiKey === '')
    throw new ConfigError(
      'The gemini worker needs GEMINI_API_KEY. In a terminal: export GEMINI_API_KEY=…; in Gemini CLI: gemini extensions config maker "Gemini API key". Or use the sim worker, which is offline.',
    );
  const baseUrl = envValue(env, 'GOOGLE_GEMINI_BASE_URL') || undefined;
  const model = new GeminiModel({
    model: config.model ?? DEFAULT_MODEL,
    apiKey,
    ...(baseUrl ? { baseUrl } : {}),
  });
  const planner = new LlmPlanner(model);
  const llmWorker = new LlmWorker(model, workspace);
  if (config.worker !== 'jules') return { planner, worker: llmWorker };
  const julesKey = envValue(env, 'JULES_API_KEY');
  if (julesKey === '')
    throw new ConfigError(
      'The jules worker needs JULES_API_KEY (from the Jules settings page). In Gemini CLI: gemini extensions config maker "Jules API key".',
    );
  const julesBaseUrl = envValue(env, 'JULES_BASE_URL');
  const source = envValue(env, 'JULES_SOURCE');
  const pollMs = pollSetting(envValue(env, 'JULES_POLL_MS'));
  const worker = julesWorker(
    config,
    workspace,
    {
      apiKey: julesKey,
      ...(julesBaseUrl === '' ? {} : { baseUrl: julesBaseUrl }),
      ...(source === '' ? {} : { source }),
      ...(pollMs === undefined ? {} : { pollMs }),
      outageMs: outageMs(config, envValue(env, 'MAKER_JULES_OUTAGE_S')),
    },
    // Merge conflicts are integrated by the model: Jules is not asked to resolve them.
    llmWorker,
  );
  return { planner, worker };
}

/**
 * Checks, before a run is created, what its roles need from the repository (keys are checked by
 * {@link rolesFor}): the jules worker needs a Jules source (a GitHub origin, or JULES_SOURCE). Throws an actionable {@link ConfigError}.
 */
export async function preflight(
  config: RunConfig,
  workspace: GitWorkspace,
  env: Readonly<Record<string, string | undefined>>,
  options: { check?: string | undefined } = {},
): Promise<void> {
  if (config.worker === 'jules' && envValue(env, 'JULES_SOURCE') === '')
    julesSourceOf(await workspace.remoteUrl('origin'));
  if (
    (config.runChecks || options.check !== undefined) &&
    (await findSandbox(env['PATH'] ?? '')) === undefined
  )
    throw new ConfigError(NO_SANDBOX);
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
    ...(checkpoint === undefined ? {} : { checkpoint }),
  });
  await workspace.excludeLocally([
    STATE_FILE_NAME,
    JOURNAL_FILE_NAME,
    `.${STATE_FILE_NAME}.tmp`,
    `${STATE_FILE_NAME}.bak`,
    `${STATE_FILE_NAME}.bak.tmp`,
    `${STATE_FILE_NAME}.lock`,
    `${STATE_FILE_NAME}.lock.*`,
  ]);
  return workspace;
}

/** An engine over the repository at `dir`, its state file and journal, with the given roles. */
export function engineFor(
  dir: string,
  workspace: GitWorkspace,
  roles: Roles | ((config: RunConfig) => Roles),
  secrets: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): MakerEngine {
  const journal = new Journal(join(dir, JOURNAL_FILE_NAME), secrets);
  const checkpoint = crashSeam(env);
  return new MakerEngine({
    workspace,
    roles,
    store: makerStateFile(dir, makeRedactor(secrets)),
    journal: (event) => journal.append(event),
    secrets,
    ...(checkpoint === undefined ? {} : { checkpoint }),
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

/** Secrets in the environment, so logs and journals can redact them. */
export function secretsOf(env: Readonly<Record<string, string | undefined>>): string[] {
  return ['GEMINI_API_KEY', 'JULES_API_KEY', 'GITHUB_TOKEN']
    .map((k) => envValue(env, k))
    .filter((v) => v.length >= 4);
}

/**
 * An environment variable, treating an unexpanded reference (`${NAME}` or `$NAME`, which Gemini CLI
 * leaves when a setting is unset) as unset.
 */
export function envValue(env: Readonly<Record<string, string | undefined>>, name: string): string {
  const value = (env[name] ?? '').trim();
  return /^\$\{?[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}?$/.test(value) ? '' : value;
}
