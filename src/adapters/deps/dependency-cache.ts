import { createHash } from 'node:crypto';
import { lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { abortableSleep } from '../../core/sleep.js';
import { MakerError } from '../../core/errors.js';
import {
  DEPENDENCY_FILES,
  dependencyKeyText,
  dependencyPlan,
  type DependencyPlan,
} from '../../core/dependencies.js';
import { lockProblems } from '../../core/install-policy.js';
import type { FileEdit } from '../../ports/workspace.js';
import type { CheckSandbox } from '../sandbox/bwrap.js';
import type { HostView } from '../sandbox/host-view.js';
import { CHECKOUT, DEPS, type Mount } from '../sandbox/view.js';
import { WorkspaceLock } from '../state/lock.js';
import { removeTree } from '../git/scratch.js';
import { runInstall } from './install.js';
import { installNetwork } from './registries.js';
import { toolVersions } from './tool-versions.js';
import { addedNames, entryProblems } from './verify-entry.js';

/** How long one install may take before it is stopped and counts as failed. */
export const INSTALL_TIMEOUT_MS = 600_000;

/** The marker written last in an entry: present only when the install finished and was verified. */
const DONE = '.maker-installed';

/** The marker's version: entries of older versions (never verified) are never served. */
const ENTRY_VERSION = 2;

/** How a check sees installed dependencies: what is mounted, its environment's additions. */
export interface CheckDependencies {
  readonly mounts: readonly Mount[];
  readonly env: Readonly<Record<string, string>>;
  /** A directory put first on the PATH (a virtualenv's `bin`). */
  readonly pathFirst?: string | undefined;
}

/** A tree's dependencies for its checks: none to install, installed (with how to show them), or failed. */
export type PreparedDependencies =
  | { readonly ok: true; readonly view?: (scratch: string) => Promise<CheckDependencies> }
  | { readonly ok: false; readonly output: string };

export interface DependencyCacheOptions {
  /** Where installs go: one directory per key (`<key>/`), and its lock while installing. */
  readonly root: string;
  /** MAKER's environment: the registries, PATH and locale come from it, nothing else. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The host view sandboxes start from (the system, the toolchains). */
  readonly view: () => Promise<HostView>;
  readonly timeoutMs?: number;
  /** The sandbox installs run in; none: every install fails, saying so. */
  readonly sandbox: () => Promise<CheckSandbox | undefined>;
}

/**
 * Installs a tree's dependencies once per content of its lock files, install command, tools'
 * versions and registries, into `<root>/<key>/`, sandboxed with no network but MAKER's registry
 * proxy, verified before it is ever served (see {@link entryProblems}), and shows them to checks
 * read-only. Lock files that would fetch from anywhere but the configured registries are refused
 * before anything runs (see {@link lockProblems}). Within a process an install runs once per key
 * (concurrent checks wait for it) and a failed one is not retried for the same files; across
 * processes a lock next to the directory keeps two installs of one key apart.
 */
export class DependencyCache {
  readonly #options: DependencyCacheOptions;
  readonly #installs = new Map<string, Promise<PreparedDependencies>>();

  constructor(options: DependencyCacheOptions) {
    this.#options = options;
  }

  /**
   * The dependencies of `treeish` for a check, installed if they are not yet: `install` is the
   * run's choice (undefined: the lock files' default; `''`: none). Never throws for a failed or
   * refused install (its output explains it); rejects with `AbortedError` when `signal` aborts.
   */
  async prepare(
    files: { readFiles(treeish: string, paths: readonly string[]): Promise<FileEdit[]> },
    treeish: string,
    install: string | undefined,
    signal?: AbortSignal,
  ): Promise<PreparedDependencies> {
    const plan = dependencyPlan(await files.readFiles(treeish, DEPENDENCY_FILES), install);
    if (plan === undefined) return { ok: true };
    const network = installNetwork(this.#options.env);
    const refused = lockProblems(plan.inputs, network.registries);
    if (refused.length > 0)
      return {
        ok: false,
        output: `The dependency files were refused, so nothing was installed and this check could not run:\n${refused
          .slice(0, 10)
          .map((p) => `- ${p}`)
          .join(
            '\n',
          )}\nInstalls take packages only from the configured registries (${network.origins.join(', ')}), by name and version, with integrity hashes.`,
      };
    const context = {
      ...(await toolVersions(plan.command, this.#options.env['PATH'] ?? '')),
      registries: network.origins.join(' '),
    };
    const key = hash(dependencyKeyText(plan, context));
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
      const served = await this.#served(dir, plan);
      if (served !== undefined) return served;
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
      return (await this.#served(dir, plan)) ?? (await this.#install(plan, dir, signal));
    } finally {
      await lock.release();
    }
  }

  /** The entry at `dir` as checks see it, if a verified install finished there. */
  async #served(dir: string, plan: DependencyPlan): Promise<PreparedDependencies | undefined> {
    const marker = await readFile(join(dir, DONE), 'utf8').catch(() => undefined);
    if (marker === undefined) return undefined;
    let names: unknown;
    try {
      const parsed = JSON.parse(marker) as { version?: unknown; names?: unknown };
      if (parsed.version !== ENTRY_VERSION) return undefined;
      names = parsed.names;
    } catch {
      return undefined;
    }
    if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) return undefined;
    return { ok: true, view: viewOf(dir, plan, names) };
  }

  async #install(
    plan: DependencyPlan,
    dir: string,
    signal: AbortSignal | undefined,
  ): Promise<PreparedDependencies> {
    // What an earlier attempt left (a crash, a failure, an older MAKER) is not trusted.
    await removeTree(dir);
    const project = join(dir, 'project');
    await mkdir(project, { recursive: true });
    await mkdir(join(dir, 'home'));
    for (const input of plan.inputs) await writeFile(join(project, input.path), input.content);
    const sandbox = await this.#options.sandbox();
    if (sandbox === undefined) {
      await removeTree(dir);
      return failed(plan, 'no sandbox works on this machine, and installs run only inside one');
    }
    const view = await this.#options.view();
    const result = await runInstall({
      command: plan.command,
      sandbox,
      view,
      dir,
      network: installNetwork(this.#options.env),
      env: this.#options.env,
      timeoutMs: this.#options.timeoutMs ?? INSTALL_TIMEOUT_MS,
      signal,
    }).catch(async (error: unknown) => {
      await removeTree(dir).catch(() => undefined);
      throw error;
    });
    if (!result.ok) {
      await removeTree(dir).catch(() => undefined);
      return failed(plan, result.output);
    }
    // The download caches served the install only: checks never see the install's home.
    await removeTree(join(dir, 'home'));
    const roots = view.mounts.flatMap((m) =>
      m.kind === 'ro-bind' ? [m.target] : m.kind === 'symlink' ? [m.path] : [],
    );
    const problems = await entryProblems(dir, roots);
    const added =
      problems.length > 0
        ? { names: [], problems: [] }
        : await addedNames(project, new Set(plan.inputs.map((f) => f.path)));
    problems.push(...added.problems);
    if (problems.length > 0) {
      await removeTree(dir).catch(() => undefined);
      return failed(
        plan,
        `The install ran, but what it wrote is refused and was removed:\n${problems.map((p) => `- ${p}`).join('\n')}`,
      );
    }
    await writeFile(
      join(dir, DONE),
      `${JSON.stringify({ version: ENTRY_VERSION, command: plan.command, names: added.names })}\n`,
    );
    return { ok: true, view: viewOf(dir, plan, added.names) };
  }
}

/**
 * How a check sees the entry in `dir`: the whole entry read-only at {@link DEPS}, what the install
 * added next to the dependency files (`node_modules`, `.venv`, …) at the same place in the
 * check's checkout (unless the checked tree, written to `scratch`, has that path itself), and the
 * variables that point tools at the rest (`PYTHONPATH` for `pip --target "$MAKER_DEPS/python"`,
 * `GOMODCACHE`, a virtualenv's `bin` first on PATH). Each name is checked again when shown: only
 * a real directory or file inside the entry is ever a mount's source.
 */
function viewOf(
  dir: string,
  plan: DependencyPlan,
  names: readonly string[],
): (scratch: string) => Promise<CheckDependencies> {
  const inputs = new Set(plan.inputs.map((f) => f.path));
  return async (scratch) => {
    const project = await lstat(join(dir, 'project')).catch(() => undefined);
    if (project?.isDirectory() !== true)
      throw new MakerError(
        'corrupt',
        `The dependency cache entry ${dir} was changed after it was verified; remove it with maker doctor --clean-deps.`,
      );
    const shown: string[] = [];
    for (const name of names) {
      if (inputs.has(name) || name.includes('/') || name.startsWith('.maker')) continue;
      const source = await lstat(join(dir, 'project', name)).catch(() => undefined);
      if (source === undefined || !(source.isDirectory() || source.isFile()))
        throw new MakerError(
          'corrupt',
          `The dependency cache entry ${dir} was changed after it was verified (${name}); remove it with maker doctor --clean-deps.`,
        );
      if ((await lstat(join(scratch, name)).catch(() => undefined)) === undefined) shown.push(name);
    }
    const env: Record<string, string> = { MAKER_DEPS: DEPS };
    if (await exists(join(dir, 'python'))) env['PYTHONPATH'] = `${DEPS}/python`;
    if (await exists(join(dir, 'go', 'mod'))) {
      env['GOMODCACHE'] = `${DEPS}/go/mod`;
      env['GOPROXY'] = 'off';
      env['GOTOOLCHAIN'] = 'local';
    }
    const venv = shown.includes('.venv');
    if (venv) env['VIRTUAL_ENV'] = `${CHECKOUT}/.venv`;
    return {
      mounts: [
        { kind: 'ro-bind', source: dir, target: DEPS },
        ...shown.map((name): Mount => ({
          kind: 'ro-bind',
          source: join(dir, 'project', name),
          target: `${CHECKOUT}/${name}`,
        })),
      ],
      env,
      pathFirst: venv ? `${CHECKOUT}/.venv/bin` : undefined,
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
  return lstat(path).then(
    () => true,
    () => false,
  );
}
