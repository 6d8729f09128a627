import { join } from 'node:path';
import { GeminiModel } from '../adapters/gemini/gemini-model.js';
import { GitWorkspace } from '../adapters/git/git-workspace.js';
import { SimPlanner, SimWorker } from '../adapters/sim/project-sim.js';
import { Journal } from '../adapters/state/journal.js';
import {
  JOURNAL_FILE_NAME,
  STATE_FILE_NAME,
  makerStateFile,
} from '../adapters/state/state-file.js';
import { ConfigError } from '../core/errors.js';
import { PRESETS, type Confidence } from '../core/tree/presets.js';
import type { RunConfig } from '../core/tree/schema.js';
import { LlmPlanner } from '../engine/llm-planner.js';
import { JulesClient } from '../adapters/jules/client.js';
import { JulesWorker } from '../adapters/jules/worker.js';
import { LlmWorker } from '../engine/llm-worker.js';
import { MakerEngine, type Roles } from '../engine/maker-engine.js';
import type { Planner } from '../ports/planner.js';
import type { Worker } from '../ports/worker.js';

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
}): RunConfig {
  const confidence = choices.confidence ?? 'medium';
  const preset = PRESETS[confidence];
  const k = choices.k ?? preset.k;
  return {
    worker: choices.worker,
    planner: choices.worker === 'sim' ? 'sim' : 'gemini',
    ...(choices.worker === 'sim' ? {} : { model: choices.model ?? DEFAULT_MODEL }),
    confidence,
    ...preset,
    k,
    maxCandidates: Math.max(preset.maxCandidates, 4 * k),
    maxBallots: Math.max(preset.maxBallots, 5 * k),
    maxDepth: choices.maxDepth ?? 3,
    maxNodes: choices.maxNodes ?? 60,
    maxChangedLines: 400,
    concurrency: choices.concurrency ?? 4,
    seed: choices.seed ?? 1,
    hitl: choices.hitl,
    runChecks: choices.runChecks ?? false,
    defaultBranch: choices.defaultBranch,
    ...(choices.sim === undefined ? {} : { sim: choices.sim }),
  };
}

/** The planner and worker a run's configuration names, built from the environment's keys. */
export function rolesFor(
  config: RunConfig,
  workspace: GitWorkspace,
  env: Readonly<Record<string, string | undefined>>,
): { planner: Planner; worker: Worker } {
  if (config.worker === 'sim') {
    const options = { seed: config.seed, ...config.sim };
    return { planner: new SimPlanner(options), worker: new SimWorker(options) };
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
  if (config.worker !== 'jules') return { planner, worker: new LlmWorker(model, workspace) };
  const julesKey = envValue(env, 'JULES_API_KEY');
  if (julesKey === '')
    throw new ConfigError(
      'The jules worker needs JULES_API_KEY (from the Jules settings page). In Gemini CLI: gemini extensions config maker "Jules API key".',
    );
  const julesBaseUrl = envValue(env, 'JULES_BASE_URL');
  const override = envValue(env, 'JULES_SOURCE');
  const worker = new JulesWorker({
    client: new JulesClient({
      apiKey: julesKey,
      ...(julesBaseUrl === '' ? {} : { baseUrl: julesBaseUrl }),
    }),
    source: async () => override || julesSourceOf(await workspace.remoteUrl('origin')),
    publishBranch: (branch, commit) => workspace.publishBranch(branch, commit),
    concurrency: Number(envValue(env, 'JULES_CONCURRENCY')) || 3,
  });
  return { planner, worker };
}

/** The Jules source of a GitHub remote URL (https or ssh), e.g. `sources/github/owner/repo`. */
export function julesSourceOf(remoteUrl: string | undefined): string {
  const match = /github\.com[:/]([^/\s]+)\/([^/\s]+?)(?:\.git)?\/?$/.exec(remoteUrl ?? '');
  if (match === null)
    throw new ConfigError(
      `The jules worker needs the repository on GitHub: its origin remote (${remoteUrl ?? 'none'}) is not a GitHub URL. Add one with git remote add origin https://github.com/<owner>/<repo>, or set JULES_SOURCE=sources/github/<owner>/<repo>.`,
    );
  return `sources/github/${match[1]}/${match[2]}`;
}

/** Opens (or creates) the repository at `dir` and keeps MAKER's files out of git's way. */
export async function openWorkspace(dir: string, create: boolean): Promise<GitWorkspace> {
  const workspace = await GitWorkspace.open(dir, { create });
  await workspace.excludeLocally([
    STATE_FILE_NAME,
    JOURNAL_FILE_NAME,
    `.${STATE_FILE_NAME}.tmp`,
    `${STATE_FILE_NAME}.lock`,
  ]);
  return workspace;
}

/** An engine over the repository at `dir`, its state file and journal, with the given roles. */
export function engineFor(
  dir: string,
  workspace: GitWorkspace,
  roles: Roles | ((config: RunConfig) => Roles),
  secrets: readonly string[],
): MakerEngine {
  const journal = new Journal(join(dir, JOURNAL_FILE_NAME), secrets);
  return new MakerEngine({
    workspace,
    roles,
    store: makerStateFile(dir),
    journal: (event) => journal.append(event),
  });
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
