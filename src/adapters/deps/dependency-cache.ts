import { createHash } from 'node:crypto';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { abortableSleep } from '../../core/sleep.js';
import { MakerError } from '../../core/errors.js';
import {
  DEPENDENCY_FILES,
  dependencyKeyText,
  dependencyPlan,
  type DependencyPlan,
} from '../../core/dependencies.js';
import type { FileEdit } from '../../ports/workspace.js';
import { resolverPlaces } from '../sandbox/bwrap-install.js';
import {
  findSandbox,
  type CheckSandbox,
  type Hidden,
  type ReadOnlyBind,
} from '../sandbox/bwrap.js';
import { WorkspaceLock } from '../state/lock.js';
import { removeTree } from '../git/scratch.js';
import { installEnv, runInstall } from './install.js';

/** How long one install may take before it is stopped and counts as failed. */
export const INSTALL_TIMEOUT_MS = 600_000;

/** The marker written last in an install's directory: present only when the install finished. */
const DONE = '.maker-installed';

/** How a check sees installed dependencies: paths shown read-only, and its environment's additions. */
export interface CheckDependencies {
  readonly readOnly: readonly ReadOnlyBind[];
  readonly env: Readonly<Record<string, string>>;
}

/** A tree's dependencies for its checks: none to install, installed (with how to show them), or failed. */
export type PreparedDependencies =
  | { readonly ok: true; readonly view?: (checkout: string) => Promise<CheckDependencies> }
  | { readonly ok: false; readonly output: string };

export interface DependencyCacheOptions {
  /** Where installs go: one directory per key (`<key>/`), and its lock while installing. */
  readonly root: string;
  /** MAKER's environment: the install takes PATH, locale and registry settings from it, nothing else. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** What the install must not see (the repository, credential stores); computed per install. */
  readonly hidden: () => Promise<Hidden[]>;
  readonly timeoutMs?: number;
  /** The sandbox installs run in (default: {@link findSandbox}); none: every install fails, saying so. */
  readonly sandbox?: () => Promise<CheckSandbox | undefined>;
}

/**
 * Installs a tree's dependencies once per content of its lock files and install command, into
 * `<root>/<key>/`, sandboxed with the network (the only step that has it), and shows them to
 * checks read-only. The key is a hash of the command and the lock files, so a subtask that
 * changes a lock file makes the next check install again. Within a process an install runs once
 * per key (concurrent checks wait for it) and a failed one is not retried for the same files;
 * across processes a lock next to the directory keeps two installs of one key apart.
 */
export class DependencyCache {
  readonly #options: DependencyCacheOptions;
  readonly #installs = new Map<string, Promise<PreparedDependencies>>();

  constructor(options: DependencyCacheOptions) {
    this.#options = options;
  }

  /**
   * The dependencies of `treeish` for a check, installed if they are not yet: `install` is the
   * run's choice (undefined: the lock files' default; `''`: none). Never throws for a failed
   * install (its output explains it); rejects with `AbortedError` when `signal` aborts.
   */
  async prepare(
    files: { readFiles(treeish: string, paths: readonly string[]): Promise<FileEdit[]> },
    treeish: string,
    install: string | undefined,
    signal?: AbortSignal,
  ): Promise<PreparedDependencies> {
    const plan = dependencyPlan(await files.readFiles(treeish, DEPENDENCY_FILES), install);
    if (plan === undefined) return { ok: true };
    const key = hash(dependencyKeyText(plan));
    // A failure is remembered per exact files (a fixed manifest with the same lock tries again).
    const attempt = `${key}:${hash(JSON.stringify(plan))}`;
    let found = this.#installs.get(attempt);
    if (found === undefined) {
      found = this.#prepare(plan, key, signal);
      this.#installs.set(attempt, found);
      // A cancelled install is no result: the next check starts it again.
      found.catch(() => this.#installs.delete(attempt));
    }
    return found;
  }

  async #prepare(
    plan: DependencyPlan,
    key: string,
    signal: AbortSignal | undefined,
  ): Promise<PreparedDependencies> {
    const dir = join(this.#options.root, key);
    await mkdir(this.#options.root, { recursive: true });
    const lock = new WorkspaceLock(`${dir}.lock`, { command: 'install' });
    const deadline = Date.now() + (this.#options.timeoutMs ?? INSTALL_TIMEOUT_MS) + 60_000;
    for (;;) {
      if (await exists(join(dir, DONE))) return { ok: true, view: viewOf(dir, plan) };
      try {
        await lock.acquire();
        break;
      } catch (error) {
        // Another MAKER process installs this key: wait for it, up to its own time limit.
        if (!(error instanceof MakerError && error.code === 'workspace-locked')) throw error;
        if (Date.now() > deadline)
          return failed(plan, 'another MAKER process was still installing them');
        await abortableSleep(1000, signal);
      }
    }
    try {
      if (await exists(join(dir, DONE))) return { ok: true, view: viewOf(dir, plan) };
      const result = await this.#install(plan, dir, signal);
      return result.ok ? { ok: true, view: viewOf(dir, plan) } : failed(plan, result.output);
    } finally {
      await lock.release();
    }
  }

  async #install(
    plan: DependencyPlan,
    dir: string,
    signal: AbortSignal | undefined,
  ): Promise<{ ok: boolean; output: string }> {
    // What an earlier attempt left (a crash, a failure) is not trusted.
    await removeTree(dir);
    const project = join(dir, 'project');
    await mkdir(project, { recursive: true });
    await mkdir(join(dir, 'home'));
    for (const input of plan.inputs) await writeFile(join(project, input.path), input.content);
    const sandbox = await (this.#options.sandbox ?? (() => findSandbox()))();
    if (sandbox === undefined) {
      await removeTree(dir);
      return {
        ok: false,
        output: 'no sandbox works on this machine, and installs run only inside one',
      };
    }
    const result = await runInstall({
      command: plan.command,
      sandbox,
      dir,
      cwd: project,
      env: installEnv(this.#options.env, dir),
      hidden: await this.#options.hidden(),
      readOnly: await resolverPlaces(),
      timeoutMs: this.#options.timeoutMs ?? INSTALL_TIMEOUT_MS,
      signal,
    }).catch(async (error: unknown) => {
      await removeTree(dir).catch(() => undefined);
      throw error;
    });
    if (!result.ok) {
      await removeTree(dir).catch(() => undefined);
      return result;
    }
    // The download caches served the install only: checks never see the install's home.
    await removeTree(join(dir, 'home'));
    await writeFile(join(dir, DONE), `${JSON.stringify({ command: plan.command })}\n`);
    return result;
  }
}

/**
 * How a check sees the install in `dir`: the whole directory at its own path (read-only), what the
 * install added next to the dependency files (`node_modules`, `.venv`, …) at the same place in the
 * check's checkout (unless the tree has that path itself), and the variables that point tools at
 * the rest (`PYTHONPATH` for `pip --target "$MAKER_DEPS/python"`, `GOMODCACHE`, a virtualenv's
 * `bin` first on PATH).
 */
function viewOf(
  dir: string,
  plan: DependencyPlan,
): (checkout: string) => Promise<CheckDependencies> {
  const inputs = new Set(plan.inputs.map((f) => f.path));
  return async (checkout) => {
    const project = join(dir, 'project');
    const added = (await readdir(project)).filter((name) => !inputs.has(name));
    const shown: string[] = [];
    for (const name of added) if (!(await exists(join(checkout, name)))) shown.push(name);
    const env: Record<string, string> = { MAKER_DEPS: dir };
    if (await exists(join(dir, 'python'))) env['PYTHONPATH'] = join(dir, 'python');
    if (await exists(join(dir, 'go', 'mod'))) {
      env['GOMODCACHE'] = join(dir, 'go', 'mod');
      env['GOPROXY'] = 'off';
      env['GOTOOLCHAIN'] = 'local';
    }
    if (shown.includes('.venv')) {
      env['VIRTUAL_ENV'] = join(checkout, '.venv');
      env['PATH'] = `${join(checkout, '.venv', 'bin')}:${process.env['PATH'] ?? ''}`;
    }
    return {
      readOnly: [
        { source: dir, target: dir },
        ...shown.map((name) => ({ source: join(project, name), target: join(checkout, name) })),
      ],
      env,
    };
  };
}

function failed(plan: DependencyPlan, output: string): PreparedDependencies {
  return {
    ok: false,
    output: `${output}\nInstalling the dependencies with \`${plan.command}\` failed, so this check could not run. Fix the lock file, or choose the install with --install "<command>" (--install none installs nothing).`,
  };
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 24);
}

function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
