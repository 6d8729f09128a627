import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MakerError } from '../../core/errors.js';
import { fileStats as fileStatsOf, numstatStats, type FileStat } from '../../core/diffstat.js';
import type { TreeChange } from '../../core/candidate-policy.js';
import type { CheckEnvironment } from '../../core/checks.js';
import type { CheckSandbox, SandboxWhere } from '../sandbox/bwrap.js';
import type { Limits } from '../sandbox/limits.js';
import { readBlobs, readChanges, readFilesAt, readModes } from './git-objects.js';
import { applyInIndex, firstLine } from './apply-patch.js';
import { GitPlumbing } from './git-plumbing.js';
import { commitTree, excludeLocally, gitDirsOf, prepareRepository } from './git-repo.js';
import { memoryScratchRoot, sweepScratch } from './scratch.js';
import { syncWorkTree, type LandingGit } from './landing.js';
import { alternates, existingStores, openStore, storeEnv, sweepStores } from './object-stores.js';
import { ScratchGitWorkspace } from './scratch-workspace.js';
import { treeWithEdits } from './tree-edit.js';
import { checkoutsOf } from './worktrees.js';
import { GitLauncher, type LauncherSeam } from './git-launcher.js';
import { gitEnv, gitOk, gitText } from './run-git.js';
import { WorkspaceChecks } from './workspace-checks.js';
import type {
  ApplyResult,
  CommitRequest,
  FileEdit,
  MergeResult,
  ScratchWorkspace,
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
  /** The sandbox checks run in, or undefined where none works (default: {@link findSandbox} at `where`). */
  readonly sandbox?: () => Promise<CheckSandbox | undefined>;
  /** Where sandboxes are looked for (default: `env`'s PATH and `MAKER_SANDBOX`). */
  readonly where?: SandboxWhere;
  /** The limits a check runs under (default: `CHECK_LIMITS`; tests lower its memory). */
  readonly checkLimits?: Limits;
}

/** Where a workspace writes its objects: a run's scratch store (see `object-stores.ts`). */
export interface ObjectStore {
  /** git's environment for the store, the repository's objects behind it. */
  readonly env: Readonly<Record<string, string>>;
  /** The launcher of the repository's own workspace, shared. */
  readonly launcher: GitLauncher;
}

/**
 * {@link Workspace} over a real git repository, with plumbing only. Reads, blobs, trees, diffs and
 * branch moves go through a few long-lived git processes ({@link GitPlumbing}); a candidate's tree
 * is built with `hash-object` and `mktree` (a patch still in a throw-away index); commits are
 * `commit-tree`, merges `merge-tree --write-tree`, branch moves compare-and-swap `update-ref`.
 * A run works in {@link scratch}, which writes into a store of its own. {@link close} stops the
 * long-lived processes.
 */
export class GitWorkspace implements Workspace {
  readonly dir: string;
  readonly options: WorkspaceOptions;
  readonly #git: GitPlumbing;
  readonly #launcher: GitLauncher;
  readonly #ownLauncher: boolean;
  readonly #checkpoint: (step: string) => Promise<void>;
  readonly #checks: WorkspaceChecks;
  /** Added to every git command's environment but `commit-tree`'s (empty: the repository's objects). */
  readonly #objectEnv: Readonly<Record<string, string>>;
  #gitDirs: Promise<{ common: string; own: string }> | undefined;

  /** See {@link WorkspaceOptions}; with `store`, objects are written there (see {@link scratch}). */
  constructor(dir: string, options: WorkspaceOptions = {}, store?: ObjectStore) {
    this.dir = dir;
    this.options = options;
    this.#objectEnv = store?.env ?? {};
    this.#git = new GitPlumbing(dir, this.#objectEnv);
    this.#ownLauncher = store === undefined;
    this.#launcher = store?.launcher ?? new GitLauncher(gitEnv(), options.launcherSeam);
    this.#checks = new WorkspaceChecks(this, {
      env: options.env,
      sandbox: options.sandbox,
      where: options.where,
      objectEnv: this.#objectEnv,
      limits: options.checkLimits,
    });
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
    const { create, ...workspaceOptions } = options;
    await prepareRepository(dir, create === true);
    const workspace = new GitWorkspace(dir, workspaceOptions);
    await sweepScratch(join(await workspace.gitDir(), 'maker-tmp'));
    await sweepScratch(tmpdir());
    await sweepScratch(await memoryScratchRoot());
    return workspace;
  }

  /** Stops the long-lived processes: git's, and the launcher's helper (unless shared). */
  async close(): Promise<void> {
    await Promise.all([this.#git.close(), this.#ownLauncher ? this.#launcher.close() : undefined]);
  }

  async scratch(runId: string): Promise<ScratchWorkspace> {
    const store = await openStore(await this.ownGitDir(), runId);
    const mainObjects = join(await this.gitDir(), 'objects');
    const env = storeEnv(store, mainObjects);
    const inner = new GitWorkspace(this.dir, this.options, { env, launcher: this.#launcher });
    return new ScratchGitWorkspace(this, inner, {
      runId,
      store,
      mainObjects,
      main: this.#git,
      scratch: inner.plumbing,
      dir: this.dir,
      git: { launcher: this.#launcher },
    });
  }

  async sweepScratch(live: readonly string[]): Promise<void> {
    await sweepStores(await this.ownGitDir(), live);
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
  async gitDir(): Promise<string> {
    return (await this.#dirs()).common;
  }

  /** This work tree's own git directory, absolute (a linked work tree's is under the common one). */
  async ownGitDir(): Promise<string> {
    return (await this.#dirs()).own;
  }

  /** Both git directories, from one git process, once. */
  #dirs(): Promise<{ common: string; own: string }> {
    this.#gitDirs ??= gitDirsOf(this.dir);
    return this.#gitDirs;
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
    const root = join(await this.gitDir(), 'maker-tmp');
    return applyInIndex(this.dir, root, base, patch, this.#objectEnv, this.#launcher);
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
  readFiles(treeish: string, paths: readonly string[]): Promise<FileEdit[]> {
    return readFilesAt(this.#git, treeish, paths);
  }

  /**
   * A diff; objects only a run's scratch store holds (a candidate being voted on) are found
   * there too, for a view from outside the run. A losing candidate's are gone once its run ends.
   */
  async diff(from: string, to: string): Promise<string> {
    try {
      return await this.#git.patch(from, to);
    } catch (error) {
      const stores = await existingStores(await this.ownGitDir());
      if (stores.length === 0 || !(error instanceof MakerError) || error.code !== 'git')
        throw error;
      const env = { ...this.#objectEnv, GIT_ALTERNATE_OBJECT_DIRECTORIES: alternates(stores) };
      const args = ['diff-tree', '-p', '--binary', '-M', from, to];
      const said = firstLine(error.message);
      return gitText(this.dir, args, { env, launcher: this.#launcher }).catch(() => {
        throw new MakerError('git', `${said} A run keeps only what it commits once it ends.`, {
          cause: error,
        });
      });
    }
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

  /** `git diff-tree --numstat` (renames found, as {@link diff}); through {@link diff} where it cannot. */
  fileStats(from: string, to: string): Promise<FileStat[]> {
    return this.#raw(['diff-tree', '-r', '--numstat', '-z', '-M', from, to]).then(
      numstatStats,
      async () => fileStatsOf(await this.diff(from, to)),
    );
  }

  async merge(ours: string, theirs: string): Promise<MergeResult> {
    // Clean: the merged tree's id. Conflicts (exit status 1): that line, then the conflicted paths.
    const args = ['merge-tree', '--write-tree', '--name-only', '--no-messages', ours, theirs];
    const out = await gitText(this.dir, args, {
      okCodes: [1],
      env: this.#objectEnv,
      launcher: this.#launcher,
    });
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

  /** See {@link WorkspaceChecks.run}. */
  runCheck(...args: Parameters<WorkspaceChecks['run']>): Promise<{ ok: boolean; output: string }> {
    return this.#checks.run(...args);
  }

  /** See {@link WorkspaceChecks.environment}. */
  checkEnvironment(): Promise<CheckEnvironment | undefined> {
    return this.#checks.environment();
  }

  /** See {@link WorkspaceChecks.unavailable}. */
  checksUnavailable(): Promise<string> {
    return this.#checks.unavailable();
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
    return gitText(this.dir, args, { env: this.#objectEnv, launcher: this.#launcher });
  }

  #ok(args: readonly string[]): Promise<boolean> {
    return gitOk(this.dir, args, { env: this.#objectEnv, launcher: this.#launcher });
  }
}
