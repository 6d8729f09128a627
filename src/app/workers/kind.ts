import type { GitWorkspace } from '../../adapters/git/git-workspace.js';
import type { RunConfig } from '../../core/tree/schema.js';
import type { Roles } from '../../engine/maker-engine.js';
import type { EditFormat } from '../../engine/models/llm-worker.js';
import type { LanguageModel } from '../../ports/language-model.js';
import type { RefPublisher } from '../../ports/ref-publisher.js';
import { envValue, type Env } from '../env.js';
import type { KindOptions } from './kind-options.js';
import type { Settings } from '../settings.js';

/**
 * What a worker kind is: one module (`app/workers/<kind>.ts`) holding its facts, its settings and
 * how its roles are built, listed by one line in `app/workers/index.ts`. Nothing else names a kind:
 * help texts, `--worker`'s choices, the MCP tools' schemas and the state file read the registry.
 * A kind module stays light (it is loaded for help texts and tool schemas): what builds its roles
 * (models, clients, fakes) is imported when {@link WorkerKind.roles} is called.
 */

/** The Gemini model a run plans, writes and judges with unless told otherwise. */
export const DEFAULT_MODEL = 'gemini-2.5-flash';

/** One environment variable a kind reads: its name, what it is for, and what is wrong with a value. */
export interface WorkerSetting {
  readonly env: string;
  readonly purpose: string;
  /** Set for kinds that cannot run without it: how a person sets it. */
  readonly required?: string;
  /** What is wrong with a value that is set (undefined when it is valid). */
  readonly problem?: (value: string) => string | undefined;
}

/** A worker kind's description: for help texts, tool schemas and the checks before a run. */
export interface WorkerFacts {
  readonly name: string;
  /** One line for help texts: what it does and what it needs. */
  readonly summary: string;
  /** Its candidates (and plans) are simulated, not real work: every output of its runs says so. */
  readonly simulated: boolean;
  /**
   * Its own run options, for kinds that take some (Jules's limits: `--jules-…`, `jules: {…}`); a
   * run keeps what was chosen as `config.workerOptions`.
   */
  readonly options?: KindOptions;
  /**
   * Its worker reads the repository's `origin` remote (the fake Jules, as Jules reads GitHub): a
   * demo without a GitHub gives it a local one.
   */
  readonly readsOrigin?: boolean;
  /** The settings it reads from the environment (its settings schema). */
  readonly settings: readonly WorkerSetting[];
  /** The page where a person follows one of its sessions, for kinds whose sessions have one. */
  readonly sessionUrl?: (id: string) => string;
}

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

/** A worker kind: its facts, what it needs before a run may start, and how its roles are built. */
export interface WorkerKind extends WorkerFacts {
  /**
   * Everything missing before a run of this kind can start or resume, as sentences naming the fix;
   * empty when it can: its settings' problems, then what else it needs. With `repo` (read before
   * any side effect), what the repository must offer too (a source Jules can use).
   */
  problems(settings: Settings, repo?: RepoFacts): string[];
  /** The planner and worker for a run's configuration (call after {@link problems} is empty). */
  roles(
    config: RunConfig,
    workspace: GitWorkspace,
    settings: Settings,
    options?: RoleOptions,
  ): Promise<Roles>;
}

/** A kind as its module defines it: its facts, what it needs beyond its settings, its roles. */
export interface WorkerKindSpec extends WorkerFacts {
  /** What it needs beyond its own settings (a model access, a repository on GitHub). */
  readonly needs?: (settings: Settings, repo?: RepoFacts) => string[];
  readonly roles: WorkerKind['roles'];
}

/** The kind `spec` defines: its problems are its settings' problems, then its needs. */
export function defineWorkerKind(spec: WorkerKindSpec): WorkerKind {
  const { needs, ...kind } = spec;
  return {
    ...kind,
    problems: (settings, repo) => [
      ...settingProblems(spec.settings, settings.env),
      ...(needs?.(settings, repo) ?? []),
    ],
  };
}

/** What is wrong with `env` for `settings`: required ones unset, then values that are set but invalid. */
export function settingProblems(settings: readonly WorkerSetting[], env: Env): string[] {
  return settings.flatMap((setting) => {
    const value = envValue(env, setting.env);
    if (value === '')
      return setting.required === undefined
        ? []
        : [`${setting.env} is not set: ${setting.purpose}. ${setting.required}`];
    const problem = setting.problem?.(value);
    return problem === undefined ? [] : [problem];
  });
}
