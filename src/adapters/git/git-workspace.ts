import { rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { MakerError } from '../../core/errors.js';
import type { TreeChange } from '../../core/candidate-policy.js';
import { DependencyCache } from '../deps/dependency-cache.js';
import {
  findSandbox,
  hiddenPlaces,
  NO_SANDBOX,
  secretPlaces,
  type CheckSandbox,
} from '../sandbox/bwrap.js';
import { findRuntimes } from '../sandbox/runtimes.js';
import { CHECK_TIMEOUT_MS, type CheckEnvironment } from '../../core/checks.js';
import { runCheckIn } from './git-check.js';
import { readBlobs, readChanges, readEntries, readModes } from './git-objects.js';
import { GitPlumbing } from './git-plumbing.js';
import { commitTree, commonGitDir, excludeLocally, prepareRepository } from './git-repo.js';
import { memoryScratchRoot, removeTree, scratchDir, sweepScratch } from './scratch.js';
import { syncWorkTree, type LandingGit } from './landing.js';
import { treeWithEdits } from './tree-edit.js';
import { checkoutsOf } from './worktrees.js';
import { GitLauncher, type LauncherSeam } from './git-launcher.js';
import { gitEnv, gitOk, gitText } from './run-git.js';
import type {
  ApplyResult,
  CheckOptions,
  CommitRequest,
  FileEdit,
  MergeResult,
  Workspace,
} from '../../ports/workspace.js';

export interface WorkspaceOptions {
  /**
   * Called before each step of a multi-step operation (landing), by name: the seam crash tests
   * kill the process through. It must not change anything.
   */
  readonly checkpoint?: (step: string) => void | Promise<void>;
  /** Tests only: told of each one-off git process handed to the launcher (see {@link LauncherSeam}). */
  readonly launcherSeam?: LauncherSeam;
  /** Where a dependency install takes its registry settings from (default: this process's environment). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The sandbox checks run in, or undefined where none works (default: {@link findSandbox}). */
  readonly sandbox?: () => Promise<CheckSandbox | undefined>;
}

/**
 * {@link Workspace} over a real git repository, with plumbing only. Reads, blobs, trees, diffs and
 * branch moves go through a few long-lived git processes ({@link GitPlumbing}); a candidate's tree
 * is built with `hash-object` and `mktree` (a patch still in a throw-away index); commits are
 * `commit-tree`, merges `merge-tree --write-tree`, branch moves compare-and-swap `update-ref`.
 * {@link close} stops the long-lived processes.
 */
export class GitWorkspace implements Workspace {
  readonly dir: string;
  readonly #git: GitPlumbing;
  readonly #launcher: GitLauncher;
  readonly #checkpoint: (step: string) => Promise<void>;
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #sandbox: () => Promise<CheckSandbox | undefined>;
  #gitDir: Promise<string> | undefined;
  #dependencies: DependencyCache | undefined;

  /** See {@link WorkspaceOptions}. */
  constructor(dir: string, options: WorkspaceOptions = {}) {
    this.dir = dir;
    this.#env = options.env ?? process.env;
    this.#sandbox = options.sandbox ?? (() => findSandbox());
    this.#git = new GitPlumbing(dir);
    this.#launcher = new GitLauncher(gitEnv(), options.launcherSeam);
    const checkpoint = options.checkpoint;
    this.#checkpoint = async (step) => {
      await checkpoint?.(step);
    };
  }

  /**
   * Opens the repository at `dir`; with `create`, makes one (branch `main`) if there is none. An
   * empty repository gets one empty initial commit, so a run always has a base commit.
   */
  static async open(
    dir: string,
    options: WorkspaceOptions & { create?: boolean } = {},
  ): Promise<GitWorkspace> {
    await prepareRepository(dir, options.create === true);
    const workspace = new GitWorkspace(dir, {
      ...(options.checkpoint === undefined ? {} : { checkpoint: options.checkpoint }),
      ...(options.launcherSeam === undefined ? {} : { launcherSeam: options.launcherSeam }),
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
    });
    await sweepScratch(join(await workspace.gitDir(), 'maker-tmp'));
    await sweepScratch(tmpdir());
    await sweepScratch(await memoryScratchRoot());
    return workspace;
  }

  /** Stops the long-lived processes: git's, and the launcher's helper. */
  async close(): Promise<void> {
    await Promise.all([this.#git.close(), this.#launcher.close()]);
  }

  /** The long-lived processes, for tests. */
  get plumbing(): GitPlumbing {
    return this.#git;
  }

  /** The helper that starts the one-off git processes, for tests. */
  get launcher(): GitLauncher {
    return this.#launcher;
  }

  /** The repository's (common) git directory, absolute. */
  gitDir(): Promise<string> {
    this.#gitDir ??= commonGitDir(this.dir);
    return this.#gitDir;
  }

  /** Adds patterns to `.git/info/exclude` (the repository's private ignore list) unless present. */
  async excludeLocally(patterns: readonly string[]): Promise<void> {
    await excludeLocally(await this.gitDir(), patterns);
  }

  /** The checked-out branch's name (the default branch a run lands on). */
  async currentBranch(): Promise<string> {
    const ref = (await this.#raw(['symbolic-ref', '-q', '--short', 'HEAD']).catch(() => '')).trim();
    if (ref === '')
      throw new MakerError(
        'git-detached',
        `${this.dir} has a detached HEAD: check out the branch the result should land on.`,
      );
    return ref;
  }

  /** The URL of a remote, or undefined when there is none. */
  async remoteUrl(name: string): Promise<string | undefined> {
    const url = (await this.#raw(['remote', 'get-url', name]).catch(() => '')).trim();
    return url === '' ? undefined : url;
  }

  /** Creates a bare repository at `path`, makes it `origin`, and pushes the current branch there. */
  async addBareOrigin(path: string): Promise<void> {
    await gitText(this.dir, ['init', '--quiet', '--initial-branch=main', '--bare', path]);
    await this.#raw(['remote', 'add', 'origin', path]);
    await this.#raw(['push', '--quiet', 'origin', await this.currentBranch()]);
  }

  /** Makes `branch` exist on `remote` at `commit` (never forced: a branch already there elsewhere is an error). */
  async publishBranch(branch: string, commit: string, remote = 'origin'): Promise<void> {
    await this.publishBranches([{ branch, commit }], remote);
  }

  /** {@link publishBranch} for several branches in one push. */
  async publishBranches(
    refs: readonly { branch: string; commit: string }[],
    remote = 'origin',
  ): Promise<void> {
    await this.#raw([
      'push',
      '--quiet',
      remote,
      ...refs.map(({ branch, commit }) => `${commit}:refs/heads/${branch}`),
    ]);
  }

  async listFiles(treeish: string): Promise<string[]> {
    const out = await this.#raw(['ls-tree', '-r', '-z', '--name-only', treeish]);
    return out.split('\0').filter((p) => p !== '');
  }

  resolve(ref: string): Promise<string | undefined> {
    return this.#git.resolveCommit(ref);
  }

  treeOf(commit: string): Promise<string> {
    return this.#git.treeOf(commit);
  }

  /** A unified diff in a throw-away index: `read-tree`, `apply --cached`, `write-tree`. */
  async applyPatch(base: string, patch: string): Promise<ApplyResult> {
    if (patch.trim() === '') return { ok: true, tree: await this.treeOf(base) };
    const scratch = await scratchDir(join(await this.gitDir(), 'maker-tmp'), 'index');
    try {
      const env = { GIT_INDEX_FILE: join(scratch, 'index') };
      await gitText(this.dir, ['read-tree', base], { env, launcher: this.#launcher });
      const file = join(scratch, 'candidate.patch');
      await writeFile(file, patch.endsWith('\n') ? patch : `${patch}\n`);
      try {
        await gitText(this.dir, ['apply', '--cached', '--whitespace=nowarn', file], {
          env,
          launcher: this.#launcher,
        });
      } catch (error) {
        // git that did not run to its end is a transport failure, never the patch's fault.
        if (error instanceof MakerError && error.code === 'git-transport') throw error;
        return { ok: false, reason: firstLine((error as Error).message) };
      }
      return {
        ok: true,
        tree: (await gitText(this.dir, ['write-tree'], { env, launcher: this.#launcher })).trim(),
      };
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  /**
   * Whole-file edits on `base`, in the long-lived processes whatever the number of files (see
   * `tree-edit.ts`). A file keeps its executable bit when rewritten.
   */
  async treeWithEdits(base: string, edits: readonly FileEdit[]): Promise<string> {
    return treeWithEdits(this.#git, await memoryScratchRoot(), base, edits);
  }

  changes(from: string, to: string): Promise<TreeChange[]> {
    return readChanges(this.#git, from, to);
  }

  readBlobs(ids: readonly string[]): Promise<Map<string, Uint8Array>> {
    return readBlobs(this.#git, ids);
  }

  modes(treeish: string, paths: readonly string[]): Promise<Map<string, string>> {
    return readModes(this.#git, treeish, paths);
  }

  /** Contents of `paths` at a commit or tree. */
  async readFiles(treeish: string, paths: readonly string[]): Promise<FileEdit[]> {
    const ids = await readEntries(this.#git, treeish, paths);
    const blobs = await readBlobs(
      this.#git,
      [...ids.values()].map((e) => e.id),
    );
    return paths.map((path) => {
      const id = ids.get(path)?.id;
      const blob = id === undefined ? undefined : blobs.get(id);
      return { path, content: blob === undefined ? null : Buffer.from(blob).toString('utf8') };
    });
  }

  diff(from: string, to: string): Promise<string> {
    return this.#git.patch(from, to);
  }

  commit(request: CommitRequest): Promise<string> {
    return commitTree(this.dir, request, { launcher: this.#launcher });
  }

  async setBranch(name: string, commit: string, expected?: string | null): Promise<void> {
    try {
      await this.#git.updateRef(`refs/heads/${name}`, commit, expected);
    } catch (error) {
      if (!(error instanceof MakerError) || error.code !== 'git-ref-moved') throw error;
      throw new MakerError(
        'git-ref-moved',
        `Branch ${name} did not point where expected; it was not moved. ${firstLine(error.message)}`,
        { cause: error },
      );
    }
  }

  async merge(ours: string, theirs: string): Promise<MergeResult> {
    // Clean: the merged tree's id. Conflicts (exit status 1): that line, then the conflicted paths.
    const args = ['merge-tree', '--write-tree', '--name-only', '--no-messages', ours, theirs];
    const out = await gitText(this.dir, args, { okCodes: [1], launcher: this.#launcher });
    const lines = out
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    const tree = lines[0];
    if (tree === undefined || !/^[0-9a-f]{40,64}$/.test(tree)) {
      throw new MakerError(
        'git-merge',
        `git merge-tree gave no tree for ${ours} and ${theirs}: ${firstLine(out)}`,
      );
    }
    return lines.length === 1
      ? { ok: true, tree }
      : { ok: false, tree, conflicts: [...new Set(lines.slice(1))] };
  }

  async planLanding(
    target: string,
    commit: string,
    expectedHead: string,
    message: string,
    date: Date,
  ): Promise<{ from: string; to: string }> {
    const head = await this.resolve(target);
    if (head === undefined) throw new MakerError('git-land', `Branch ${target} does not exist.`);
    if (head === commit || (await this.#ok(['merge-base', '--is-ancestor', commit, head])))
      return { from: head, to: head };
    if (head === expectedHead || (await this.#ok(['merge-base', '--is-ancestor', head, commit])))
      return { from: head, to: commit };
    const merged = await this.merge(head, commit);
    if (!merged.ok)
      throw new MakerError(
        'git-land',
        `${target} moved since the run started and merging the result conflicts in ${merged.conflicts.join(', ')}. Merge branch ${commit} by hand.`,
      );
    await this.#checkpoint('land:merge-commit');
    const to = await this.commit({ tree: merged.tree, parents: [head, commit], message, date });
    return { from: head, to };
  }

  async completeLanding(target: string, from: string, to: string): Promise<void> {
    const head = await this.resolve(target);
    if (head === to) return;
    if (head !== from)
      throw new MakerError(
        'git-land-moved',
        `${target} moved (to ${head ?? 'nothing'}) since the landing was planned.`,
      );
    // Every work tree with the target checked out moves with it (git's own rule: a branch checked
    // out anywhere is never moved underneath it); one being rebased or bisected refuses.
    const inDir = (dir: string, args: readonly string[]) =>
      gitText(dir, args, { launcher: this.#launcher });
    for (const checkout of await checkoutsOf(inDir, this.dir, target))
      await syncWorkTree(this.#landingGit(checkout), target, from, to);
    await this.#checkpoint('land:update-ref');
    await this.setBranch(target, to, from);
  }

  async runCheck(
    treeish: string,
    command: string,
    timeoutMs: number,
    signal?: AbortSignal,
    options: CheckOptions = {},
  ): Promise<{ ok: boolean; output: string }> {
    const sandbox = await this.#sandbox();
    if (sandbox === undefined) throw new MakerError('no-sandbox', NO_SANDBOX);
    const hidden = await this.#hidden();
    const dependencies = await (
      await this.#dependencyCache()
    ).prepare(this, treeish, options.install, signal);
    if (!dependencies.ok) return { ok: false, output: dependencies.output };
    const scratch = await scratchDir(tmpdir(), 'check');
    try {
      return await runCheckIn(
        this.dir,
        scratch,
        treeish,
        command,
        timeoutMs,
        sandbox,
        hidden,
        signal,
        dependencies.view,
      );
    } finally {
      // What the check left there is its own doing: a checkout that resists removal is swept later.
      await removeTree(scratch).catch(() => undefined);
    }
  }

  /**
   * Out of a check's and an install's sight: the repository (its history, config and MAKER's
   * state), sockets under /run (D-Bus, docker, databases) and the home directory's credential stores.
   */
  async #hidden() {
    return [
      ...(await hiddenPlaces(['/run', this.dir, await this.gitDir()])),
      ...(await secretPlaces(homedir())),
    ];
  }

  /** Installed dependencies for checks, cached in `.git/maker-deps/` (see {@link DependencyCache}). */
  async #dependencyCache(): Promise<DependencyCache> {
    const root = join(await this.gitDir(), 'maker-deps');
    this.#dependencies ??= new DependencyCache({
      root,
      env: this.#env,
      hidden: () => this.#hidden(),
      sandbox: this.#sandbox,
    });
    return this.#dependencies;
  }

  /**
   * The sandbox checks run in and the runtimes on its PATH; undefined when none works here. A
   * repository with a lock file gets its dependencies installed for its checks (read-only).
   */
  async checkEnvironment(): Promise<CheckEnvironment | undefined> {
    const sandbox = await this.#sandbox();
    if (sandbox === undefined) return undefined;
    return {
      sandbox: sandbox.name,
      runtimes: await findRuntimes(),
      dependencies:
        "those the repository's lock file names (package-lock.json, requirements.txt, …), installed before the check and read-only to it; none without a lock file (then only the standard library and what the repository holds)",
      timeLimitSeconds: CHECK_TIMEOUT_MS / 1000,
    };
  }

  /** Landing's git access in the work tree at `dir` (this one or a linked one). */
  #landingGit(dir: string): LandingGit {
    return {
      dir,
      raw: (args) => gitText(dir, args, { launcher: this.#launcher }),
      ok: (args) => gitOk(dir, args, { launcher: this.#launcher }),
      checkpoint: this.#checkpoint,
    };
  }

  #raw(args: readonly string[]): Promise<string> {
    return gitText(this.dir, args, { launcher: this.#launcher });
  }

  #ok(args: readonly string[]): Promise<boolean> {
    return gitOk(this.dir, args, { launcher: this.#launcher });
  }
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? ''
  );
}
