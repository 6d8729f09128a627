import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { MakerError } from '../../core/errors.js';
import { CHECK_TIMEOUT_MS, type CheckEnvironment } from '../../core/checks.js';
import type { CheckOptions, FileEdit } from '../../ports/workspace.js';
import { DependencyCache } from '../deps/dependency-cache.js';
import type { CheckSandbox, SandboxWhere } from '../sandbox/bwrap.js';
import { findSandbox, NO_SANDBOX, noSandboxReason } from '../sandbox/bwrap.js';
import { hostView, type HostView } from '../sandbox/host-view.js';
import { findRuntimes } from '../sandbox/runtimes.js';
import type { Limits } from '../sandbox/limits.js';
import { runCheckIn } from './git-check.js';
import type { GitLauncher } from './git-launcher.js';
import { removeTree, scratchDir } from './scratch.js';

/** The repository a check runs on, as {@link WorkspaceChecks} sees it. */
export interface CheckedRepository {
  readonly dir: string;
  gitDir(): Promise<string>;
  readFiles(treeish: string, paths: readonly string[]): Promise<FileEdit[]>;
  /** What starts its one-off git processes (a small helper), if it has one. */
  readonly launcher?: GitLauncher | undefined;
}

/**
 * A workspace's checks: each runs on a copy of the tree it judges, inside the sandbox, which shows
 * nothing of the host but the system, `/etc` without credentials and the toolchains, read-only
 * (never the repository, the home directory, `/run` or `/tmp`), with the tree's dependencies
 * installed (cached in `.git/maker-deps/`) and shown read-only.
 */
export class WorkspaceChecks {
  readonly #repo: CheckedRepository;
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #sandbox: () => Promise<CheckSandbox | undefined>;
  readonly #where: SandboxWhere;
  /** What git reading the checked tree needs besides the repository (a scratch object store). */
  readonly #objectEnv: Readonly<Record<string, string>>;
  /** A check's limits, when not {@link CHECK_LIMITS} (tests: a lower memory limit). */
  readonly #limits: Limits | undefined;
  #dependencies: DependencyCache | undefined;

  constructor(
    repo: CheckedRepository,
    options: {
      env?: Readonly<Record<string, string | undefined>> | undefined;
      sandbox?: (() => Promise<CheckSandbox | undefined>) | undefined;
      where?: SandboxWhere | undefined;
      objectEnv?: Readonly<Record<string, string>> | undefined;
      limits?: Limits | undefined;
    } = {},
  ) {
    this.#repo = repo;
    this.#env = options.env ?? process.env;
    const where = options.where ?? {
      path: this.#env['PATH'] ?? '',
      choice: this.#env['MAKER_SANDBOX'] || undefined,
    };
    this.#where = where;
    this.#sandbox = options.sandbox ?? (() => findSandbox(where.path, where.choice));
    this.#objectEnv = options.objectEnv ?? {};
    this.#limits = options.limits;
  }

  async run(
    treeish: string,
    command: string,
    timeoutMs: number,
    signal?: AbortSignal,
    options: CheckOptions = {},
  ): Promise<{ ok: boolean; output: string }> {
    const sandbox = await this.#sandbox();
    if (sandbox === undefined) throw new MakerError('no-sandbox', NO_SANDBOX);
    // `/etc` is read again for every check: alongside the install and the checkout, not before.
    const view = this.#view();
    view.catch(() => undefined);
    const dependencies = await (
      await this.#dependencyCache()
    ).prepare(this.#repo, treeish, options.install, signal);
    if (!dependencies.ok) return { ok: false, output: dependencies.output };
    const scratch = await scratchDir(tmpdir(), 'check');
    try {
      return await runCheckIn(this.#repo.dir, scratch, treeish, command, {
        sandbox,
        view,
        timeoutMs,
        signal,
        dependencies: dependencies.view,
        objectEnv: this.#objectEnv,
        launcher: this.#repo.launcher,
        env: this.#env,
        limits: this.#limits,
      });
    } finally {
      // What the check left there is its own doing: a checkout that resists removal is swept later.
      await removeTree(scratch).catch(() => undefined);
    }
  }

  /**
   * The sandbox checks run in and the runtimes on its PATH; undefined when none works here. A
   * repository with a lock file gets its dependencies installed for its checks (read-only).
   */
  async environment(): Promise<CheckEnvironment | undefined> {
    const sandbox = await this.#sandbox();
    if (sandbox === undefined) return undefined;
    return {
      sandbox: sandbox.name,
      runtimes: await findRuntimes(this.#env['PATH'] ?? ''), // as its view finds toolchains
      dependencies:
        "those the repository's lock file names (package-lock.json, requirements.txt, …), installed before the check and read-only to it; none without a lock file (then only the standard library and what the repository holds)",
      timeLimitSeconds: CHECK_TIMEOUT_MS / 1000,
    };
  }

  /** Why checks cannot run here (see {@link noSandboxReason}). */
  unavailable(): Promise<string> {
    return noSandboxReason(this.#where.path, this.#where.choice);
  }

  /** What every check and install sees of the host (made once per PATH). */
  #view(): Promise<HostView> {
    return hostView(this.#env['PATH'] ?? '', homedir());
  }

  /** Installed dependencies for checks, cached in `.git/maker-deps/` (see {@link DependencyCache}). */
  async #dependencyCache(): Promise<DependencyCache> {
    const root = join(await this.#repo.gitDir(), 'maker-deps');
    this.#dependencies ??= new DependencyCache({
      root,
      env: this.#env,
      view: () => this.#view(),
      sandbox: this.#sandbox,
    });
    return this.#dependencies;
  }
}
