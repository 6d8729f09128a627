import type { TreeChange } from '../../core/candidate-policy.js';
import type { CheckEnvironment } from '../../core/checks.js';
import type { FileStat } from '../../core/diffstat.js';
import type {
  ApplyResult,
  CheckOptions,
  CommitRequest,
  FileEdit,
  MergeResult,
  ScratchWorkspace,
  Workspace,
} from '../../ports/workspace.js';
import { promoteTree, removeStore, type Promotion } from './object-stores.js';

/** The two workspaces a run's scratch workspace is made of (structural, to keep imports one-way). */
interface GitSide extends Workspace {
  ownGitDir(): Promise<string>;
  fileStats(from: string, to: string): Promise<FileStat[]>;
  close(): Promise<void>;
}

/**
 * A run's workspace (see `Workspace.scratch`): reads and writes go to `inner`, a workspace whose
 * objects go to the run's scratch store with the repository's behind it; a commit first moves its
 * tree's objects into the repository ({@link promoteTree}) and is then made there by `main`, and
 * every ref move and landing is `main`'s, so git itself refuses a ref to an object the repository
 * lacks. A kill at any point leaves the repository holding whole trees only.
 */
export class ScratchGitWorkspace implements ScratchWorkspace {
  readonly #main: GitSide;
  readonly #inner: GitSide;
  readonly #promotion: Promotion & { readonly runId: string };

  constructor(main: GitSide, inner: GitSide, promotion: Promotion & { readonly runId: string }) {
    this.#main = main;
    this.#inner = inner;
    this.#promotion = promotion;
  }

  /** Moves `tree`'s objects into the repository (those it lacks), deepest first. */
  keep(tree: string): Promise<void> {
    return promoteTree(this.#promotion, tree);
  }

  async commit(request: CommitRequest): Promise<string> {
    await this.keep(request.tree);
    return this.#main.commit(request);
  }

  setBranch(name: string, commit: string, expected?: string | null): Promise<void> {
    return this.#main.setBranch(name, commit, expected);
  }

  planLanding(
    target: string,
    commit: string,
    expectedHead: string,
    message: string,
    date: Date,
  ): Promise<{ from: string; to: string }> {
    return this.#main.planLanding(target, commit, expectedHead, message, date);
  }

  completeLanding(target: string, from: string, to: string): Promise<void> {
    return this.#main.completeLanding(target, from, to);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  async discard(): Promise<void> {
    await this.close();
    await removeStore(await this.#main.ownGitDir(), this.#promotion.runId);
  }

  resolve(ref: string): Promise<string | undefined> {
    return this.#inner.resolve(ref);
  }

  listFiles(treeish: string): Promise<string[]> {
    return this.#inner.listFiles(treeish);
  }

  treeOf(treeish: string): Promise<string> {
    return this.#inner.treeOf(treeish);
  }

  applyPatch(base: string, patch: string): Promise<ApplyResult> {
    return this.#inner.applyPatch(base, patch);
  }

  treeWithEdits(base: string, edits: readonly FileEdit[]): Promise<string> {
    return this.#inner.treeWithEdits(base, edits);
  }

  diff(from: string, to: string): Promise<string> {
    return this.#inner.diff(from, to);
  }

  fileStats(from: string, to: string): Promise<FileStat[]> {
    return this.#inner.fileStats(from, to);
  }

  merge(ours: string, theirs: string): Promise<MergeResult> {
    return this.#inner.merge(ours, theirs);
  }

  changes(from: string, to: string): Promise<TreeChange[]> {
    return this.#inner.changes(from, to);
  }

  readBlobs(ids: readonly string[]): Promise<Map<string, Uint8Array>> {
    return this.#inner.readBlobs(ids);
  }

  modes(treeish: string, paths: readonly string[]): Promise<Map<string, string>> {
    return this.#inner.modes(treeish, paths);
  }

  readFiles(treeish: string, paths: readonly string[]): Promise<FileEdit[]> {
    return this.#inner.readFiles(treeish, paths);
  }

  runCheck(
    treeish: string,
    command: string,
    timeoutMs: number,
    signal?: AbortSignal,
    options?: CheckOptions,
  ): Promise<{ ok: boolean; output: string }> {
    return this.#inner.runCheck(treeish, command, timeoutMs, signal, options);
  }

  checkEnvironment(): Promise<CheckEnvironment | undefined> {
    return this.#inner.checkEnvironment?.() ?? Promise.resolve(undefined);
  }

  checksUnavailable(): Promise<string> {
    return this.#inner.checksUnavailable?.() ?? Promise.resolve('No sandbox works on this machine');
  }
}
