import { execFile } from 'node:child_process';
import { appendFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { CheckRepoActions, simpleGit, type SimpleGit } from 'simple-git';
import { MakerError } from '../../core/errors.js';
import type { TreeChange } from '../../core/candidate-policy.js';
import { findSandbox, NO_SANDBOX } from '../sandbox/bwrap.js';
import { runCheckIn } from './git-check.js';
import { readBlobs, readChanges, readEntries, readModes } from './git-objects.js';
import { scratchDir, sweepScratch } from './scratch.js';
import { syncWorkTree, type LandingGit } from './landing.js';
import { runGit } from './run-git.js';
import type {
  ApplyResult,
  CommitRequest,
  FileEdit,
  MergeResult,
  Workspace,
} from '../../ports/workspace.js';

const execFileAsync = promisify(execFile);
const IDENTITY = { name: 'MAKER', email: 'maker@localhost' };
/** The git variables this adapter sets itself; simple-git strips every other GIT_* it inherits. */
const ALLOWED_GIT_ENV = [
  'GIT_INDEX_FILE',
  'GIT_TERMINAL_PROMPT',
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_AUTHOR_DATE',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'GIT_COMMITTER_DATE',
];

/**
 * {@link Workspace} over a real git repository through simple-git, with plumbing only: candidate
 * trees are built in a throw-away index (`GIT_INDEX_FILE`), commits with `commit-tree`, merges with
 * `merge-tree --write-tree`, branches with compare-and-swap `update-ref`.
 */
export class GitWorkspace implements Workspace {
  readonly dir: string;
  readonly #checkpoint: (step: string) => Promise<void>;

  /**
   * `checkpoint` is called before each step of a multi-step operation (landing), by name: the
   * seam crash tests kill the process through. It must not change anything.
   */
  constructor(dir: string, options: { checkpoint?: (step: string) => void | Promise<void> } = {}) {
    this.dir = dir;
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
    options: { create?: boolean; checkpoint?: (step: string) => void | Promise<void> } = {},
  ): Promise<GitWorkspace> {
    if (options.create === true) await mkdir(dir, { recursive: true });
    const git = simpleGit({ baseDir: dir, allowEnvironment: ALLOWED_GIT_ENV });
    const isRepo = await git.checkIsRepo(CheckRepoActions.IS_REPO_ROOT).catch(() => false);
    if (!isRepo) {
      if (options.create !== true)
        throw new MakerError('git-not-a-repo', `${dir} is not a git repository.`);
      await git.init(['--initial-branch=main']);
    }
    const workspace = new GitWorkspace(
      dir,
      options.checkpoint === undefined ? {} : { checkpoint: options.checkpoint },
    );
    if ((await workspace.resolve('HEAD')) === undefined) {
      // An empty repository: give it a root commit so runs have a base to branch from.
      const branch = (await workspace.#git().raw(['symbolic-ref', 'HEAD'])).trim();
      // Written (-w), so the repository's first commit points at a tree it holds (git fsck passes).
      const tree = (
        await workspace.#git().raw(['hash-object', '-w', '-t', 'tree', '/dev/null'])
      ).trim();
      const commit = await workspace.commit({
        tree,
        parents: [],
        message: 'Initial commit',
        date: new Date(),
      });
      await workspace.#git().raw(['update-ref', branch, commit]);
    }
    await sweepScratch(join(await workspace.gitDir(), 'maker-tmp'));
    await sweepScratch(tmpdir());
    return workspace;
  }

  /** The repository's (common) git directory, absolute. */
  async gitDir(): Promise<string> {
    const gitDir = (await this.#git().raw(['rev-parse', '--git-common-dir'])).trim();
    return isAbsolute(gitDir) ? gitDir : join(this.dir, gitDir);
  }

  /** Adds patterns to `.git/info/exclude` (the repository's private ignore list) unless present. */
  async excludeLocally(patterns: readonly string[]): Promise<void> {
    const file = join(await this.gitDir(), 'info', 'exclude');
    const current = await readFile(file, 'utf8').catch(() => '');
    const missing = patterns.filter((p) => !current.split('\n').includes(p));
    if (missing.length === 0) return;
    await mkdir(dirname(file), { recursive: true });
    await appendFile(
      file,
      `${current === '' || current.endsWith('\n') ? '' : '\n'}${missing.join('\n')}\n`,
    );
  }

  /** The checked-out branch's name (the default branch a run lands on). */
  async currentBranch(): Promise<string> {
    const ref = (
      await this.#git()
        .raw(['symbolic-ref', '-q', '--short', 'HEAD'])
        .catch(() => '')
    ).trim();
    if (ref === '')
      throw new MakerError(
        'git-detached',
        `${this.dir} has a detached HEAD: check out the branch the result should land on.`,
      );
    return ref;
  }

  /** The URL of a remote, or undefined when there is none. */
  async remoteUrl(name: string): Promise<string | undefined> {
    const url = (
      await this.#git()
        .raw(['remote', 'get-url', name])
        .catch(() => '')
    ).trim();
    return url === '' ? undefined : url;
  }

  /** Creates a bare repository at `path`, makes it `origin`, and pushes the current branch there. */
  async addBareOrigin(path: string): Promise<void> {
    await simpleGit().raw(['init', '--quiet', '--initial-branch=main', '--bare', path]);
    await this.#git().raw(['remote', 'add', 'origin', path]);
    await this.#git().raw(['push', '--quiet', 'origin', await this.currentBranch()]);
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
    await this.#git().raw([
      'push',
      '--quiet',
      remote,
      ...refs.map(({ branch, commit }) => `${commit}:refs/heads/${branch}`),
    ]);
  }

  async listFiles(treeish: string): Promise<string[]> {
    const out = await this.#git().raw(['ls-tree', '-r', '-z', '--name-only', treeish]);
    return out.split('\0').filter((p) => p !== '');
  }

  async resolve(ref: string): Promise<string | undefined> {
    try {
      return (
        (await this.#git().raw(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])).trim() ||
        undefined
      );
    } catch {
      return undefined;
    }
  }

  async applyPatch(base: string, patch: string): Promise<ApplyResult> {
    if (patch.trim() === '') return { ok: true, tree: await this.treeOf(base) };
    return this.#withIndex(base, async (git, scratch) => {
      const file = join(scratch, 'candidate.patch');
      await writeFile(file, patch.endsWith('\n') ? patch : `${patch}\n`);
      try {
        await git.raw(['apply', '--cached', '--whitespace=nowarn', file]);
      } catch (error) {
        return { ok: false, reason: firstLine((error as Error).message) };
      }
      return { ok: true, tree: (await git.raw(['write-tree'])).trim() };
    });
  }

  /**
   * Whole-file edits on `base` in a private index, in a handful of git processes whatever the
   * number of files: one `hash-object --stdin-paths`, then `update-index` (git itself refuses
   * invalid paths and a file under a file). A file keeps its executable bit when rewritten.
   */
  async treeWithEdits(base: string, edits: readonly FileEdit[]): Promise<string> {
    return this.#withIndex(base, async (git, scratch) => {
      const writes = edits.filter((e): e is FileEdit & { content: string } => e.content !== null);
      const removals = edits.filter((e) => e.content === null).map((e) => e.path);
      if (removals.length > 0) await git.raw(['update-index', '--force-remove', '--', ...removals]);
      if (writes.length === 0) return (await git.raw(['write-tree'])).trim();
      const files = await Promise.all(
        writes.map(async (edit, i) => {
          const file = join(scratch, `blob-${i}`);
          await writeFile(file, edit.content);
          return file;
        }),
      );
      const blobs = (
        await runGit(this.dir, ['hash-object', '-w', '--stdin-paths'], {
          input: `${files.join('\n')}\n`,
        })
      )
        .toString('utf8')
        .trim()
        .split('\n');
      const modes = await this.modes(
        base,
        writes.map((e) => e.path),
      );
      await git.raw([
        'update-index',
        '--add',
        ...writes.flatMap((e, i) => [
          '--cacheinfo',
          `${modes.get(e.path) === '100755' ? '100755' : '100644'},${blobs[i] ?? ''},${e.path}`,
        ]),
      ]);
      return (await git.raw(['write-tree'])).trim();
    });
  }

  changes(from: string, to: string): Promise<TreeChange[]> {
    return readChanges(this.dir, from, to);
  }

  readBlobs(ids: readonly string[]): Promise<Map<string, Uint8Array>> {
    return readBlobs(this.dir, ids);
  }

  modes(treeish: string, paths: readonly string[]): Promise<Map<string, string>> {
    return readModes(this.dir, treeish, paths);
  }

  /** Contents of `paths` at a commit or tree, in two git processes whatever their number. */
  async readFiles(treeish: string, paths: readonly string[]): Promise<FileEdit[]> {
    const ids = await readEntries(this.dir, treeish, paths);
    const blobs = await readBlobs(
      this.dir,
      [...ids.values()].map((e) => e.id),
    );
    return paths.map((path) => {
      const id = ids.get(path)?.id;
      const blob = id === undefined ? undefined : blobs.get(id);
      return { path, content: blob === undefined ? null : Buffer.from(blob).toString('utf8') };
    });
  }

  async diff(from: string, to: string): Promise<string> {
    return this.#git().raw(['diff', '--binary', '--no-color', '--no-ext-diff', from, to]);
  }

  async commit(request: CommitRequest): Promise<string> {
    const date = `${Math.floor(request.date.getTime() / 1000)} +0000`;
    const git = this.#git({
      GIT_AUTHOR_NAME: IDENTITY.name,
      GIT_AUTHOR_EMAIL: IDENTITY.email,
      GIT_COMMITTER_NAME: IDENTITY.name,
      GIT_COMMITTER_EMAIL: IDENTITY.email,
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
    });
    const args = [
      'commit-tree',
      request.tree,
      ...request.parents.flatMap((p) => ['-p', p]),
      '-m',
      request.message,
    ];
    return (await git.raw(args)).trim();
  }

  async setBranch(name: string, commit: string, expected?: string | null): Promise<void> {
    const args = ['update-ref', '-m', 'maker', `refs/heads/${name}`, commit];
    if (expected !== undefined) args.push(expected ?? '0'.repeat(40));
    try {
      await this.#git().raw(args);
    } catch (error) {
      throw new MakerError(
        'git-ref-moved',
        `Branch ${name} did not point where expected; it was not moved. ${firstLine((error as Error).message)}`,
        { cause: error },
      );
    }
  }

  async merge(ours: string, theirs: string): Promise<MergeResult> {
    // Clean: the merged tree's id. Conflicts (exit status 1): that line, then the conflicted paths.
    const out = await this.#git().raw([
      'merge-tree',
      '--write-tree',
      '--name-only',
      '--no-messages',
      ours,
      theirs,
    ]);
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
    if (head === commit || (await this.#isAncestor(commit, head))) return { from: head, to: head };
    if (head === expectedHead) return { from: head, to: commit };
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
    if ((await this.#checkedOutBranch()) === target)
      await syncWorkTree(this.#landingGit(), target, from, to);
    await this.#checkpoint('land:update-ref');
    await this.setBranch(target, to, from);
  }

  async runCheck(
    treeish: string,
    command: string,
    timeoutMs: number,
  ): Promise<{ ok: boolean; output: string }> {
    const sandbox = await findSandbox();
    if (sandbox === undefined) throw new MakerError('no-sandbox', NO_SANDBOX);
    const scratch = await scratchDir(tmpdir(), 'check');
    try {
      return await runCheckIn(this.dir, scratch, treeish, command, timeoutMs, sandbox);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  #isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    return this.#ok(['merge-base', '--is-ancestor', ancestor, descendant]);
  }

  /** Whether a git command exits 0: the answer of commands that answer by status alone (simple-git does not report it). */
  #ok(args: readonly string[]): Promise<boolean> {
    return execFileAsync('git', ['-C', this.dir, ...args], {
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', LC_ALL: 'C' },
    }).then(
      () => true,
      () => false,
    );
  }

  async #checkedOutBranch(): Promise<string | undefined> {
    const ref = (
      await this.#git()
        .raw(['symbolic-ref', '-q', 'HEAD'])
        .catch(() => '')
    ).trim();
    return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : undefined;
  }

  #landingGit(): LandingGit {
    return {
      dir: this.dir,
      raw: (args) => this.#git().raw([...args]),
      ok: (args) => this.#ok(args),
      checkpoint: this.#checkpoint,
    };
  }

  async treeOf(commit: string): Promise<string> {
    return (await this.#git().raw(['rev-parse', '--verify', `${commit}^{tree}`])).trim();
  }

  /** Runs `work` with a private index loaded from `base`, in a scratch directory removed afterwards. */
  async #withIndex<T>(
    base: string,
    work: (git: SimpleGit, scratch: string) => Promise<T>,
  ): Promise<T> {
    const scratch = await scratchDir(join(await this.gitDir(), 'maker-tmp'), 'index');
    try {
      const git = this.#git({ GIT_INDEX_FILE: join(scratch, 'index') });
      await git.raw(['read-tree', base]);
      return await work(git, scratch);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  #git(extraEnv: Readonly<Record<string, string>> = {}): SimpleGit {
    // A minimal environment: no inherited GIT_* (a hook's GIT_DIR would redirect us), no editors or pagers.
    const env: Record<string, string> = { LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0' };
    for (const key of ['PATH', 'HOME', 'TMPDIR', 'SYSTEMROOT']) {
      const value = process.env[key];
      if (value !== undefined) env[key] = value;
    }
    return simpleGit({ baseDir: this.dir, allowEnvironment: ALLOWED_GIT_ENV }).env({
      ...env,
      ...extraEnv,
    });
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
