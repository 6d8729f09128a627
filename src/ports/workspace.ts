import type { CheckEnvironment } from '../core/checks.js';
import type { TreeChange } from '../core/candidate-policy.js';
import type { FileStat } from '../core/diffstat.js';

/** git's id of the empty tree: `changes(EMPTY_TREE, x)` lists every entry of `x`, with blob ids and sizes. */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** A file's new content in a candidate change; `null` deletes it. */
export interface FileEdit {
  readonly path: string;
  readonly content: string | null;
}

export type ApplyResult =
  { readonly ok: true; readonly tree: string } | { readonly ok: false; readonly reason: string };
/** A merge's tree; on conflict, the tree with conflict markers in the conflicting paths. */
export type MergeResult =
  | { readonly ok: true; readonly tree: string }
  | { readonly ok: false; readonly tree: string; readonly conflicts: readonly string[] };

export interface CommitRequest {
  readonly tree: string;
  readonly parents: readonly string[];
  readonly message: string;
  /** Author and committer date. A fixed date makes the commit id a pure function of its content, so redoing it after a crash gives the same commit. */
  readonly date: Date;
}

/** How a check runs beyond its command. */
export interface CheckOptions {
  /**
   * The command that installs the tree's dependencies before the check (once per content of its
   * lock files: later checks reuse the install, read-only). Undefined: the default for the lock
   * files found (none without one); `''`: install nothing.
   */
  readonly install?: string | undefined;
}

/**
 * The git repository a run composes in, as content-addressed operations: nothing here touches the
 * working tree or the user's index, so runs can work while the person edits, and every operation
 * is safe to repeat after a crash.
 */
export interface Workspace extends Repository, Landing, CheckRunner, ScratchStores {}

/** The repository's objects and refs: read, build trees and commits, merge, point branches. */
export interface Repository {
  /** The commit a ref (branch name or `HEAD`) points at, or undefined when it does not exist. */
  resolve(ref: string): Promise<string | undefined>;
  /** Every file path in a commit or tree. */
  listFiles(treeish: string): Promise<string[]>;
  /** The tree id of a commit (or a tree id itself). */
  treeOf(treeish: string): Promise<string>;
  /** The tree of `base` after applying a unified diff, or why it does not apply. */
  applyPatch(base: string, patch: string): Promise<ApplyResult>;
  /** The tree of `base` with whole-file edits applied. */
  treeWithEdits(base: string, edits: readonly FileEdit[]): Promise<string>;
  /** A unified diff (`git diff --binary`) from one commit or tree to another. */
  diff(from: string, to: string): Promise<string>;
  /**
   * Per-file line counts from one commit or tree to another, as {@link diff}'s would give, without
   * the patch text (a whole run's result can be tens of megabytes of patch). Optional: without it,
   * the counts are taken from {@link diff}.
   */
  fileStats?(from: string, to: string): Promise<FileStat[]>;
  commit(request: CommitRequest): Promise<string>;
  /** Points a branch at `commit`; with `expected`, only if it still points there (null: must not exist). */
  setBranch(name: string, commit: string, expected?: string | null): Promise<void>;
  /** Three-way merge of two commits into a tree, or the conflicting paths. */
  merge(ours: string, theirs: string): Promise<MergeResult>;
  /** The entries that differ between two trees (or commits), recursively, with modes, blobs and new sizes. */
  changes(from: string, to: string): Promise<TreeChange[]>;
  /** Blob contents by id, byte for byte (binary safe); ids that are not blobs are left out. */
  readBlobs(ids: readonly string[]): Promise<Map<string, Uint8Array>>;
  /** The git mode of each of `paths` that exists in a tree (e.g. `120000` for a symlink). */
  modes(treeish: string, paths: readonly string[]): Promise<Map<string, string>>;
  /** Contents of `paths` at a commit or tree (`null` where a path does not exist). */
  readFiles(treeish: string, paths: readonly string[]): Promise<FileEdit[]>;
}

/** Landing a result on a branch the person may have checked out, restartable at every step. */
export interface Landing {
  /**
   * The commit that lands `commit` on branch `target`: `commit` itself when `target` is still at
   * `expectedHead` or behind `commit` (a fast-forward), or a merge of the two (fixed `date`, so computing it again
   * gives the same commit). Changes no ref. Throws `git-land` when the merge conflicts.
   */
  planLanding(
    target: string,
    commit: string,
    expectedHead: string,
    message: string,
    date: Date,
  ): Promise<{ readonly from: string; readonly to: string }>;
  /**
   * Moves `target` from `from` to `to`; if `target` is checked out, the working tree and index
   * follow first. Restartable at every step: a working tree and index found exactly at `from`, at
   * `to`, or part-way between them after a crash are finished; anything else (a person's own
   * changes) refuses with `git-land-dirty` and touches nothing. A `target` already at `to` is done;
   * at neither `from` nor `to`, throws `git-land-moved` (plan again).
   */
  completeLanding(target: string, from: string, to: string): Promise<void>;
}

/** Running a command on a tree in a sandboxed scratch checkout (a node's or the run's check). */
export interface CheckRunner {
  /**
   * Runs `command` in a scratch checkout of `treeish`; resolves with its exit code and output tail.
   * When `signal` aborts, the check is killed and the call rejects with `AbortedError`: a check a
   * run's cancellation cut short says nothing about the candidate. A failed dependency install
   * (see {@link CheckOptions}) is a failed check whose output says so.
   */
  runCheck(
    treeish: string,
    command: string,
    timeoutMs: number,
    signal?: AbortSignal,
    options?: CheckOptions,
  ): Promise<{ ok: boolean; output: string }>;
  /**
   * Where {@link runCheck} runs commands: the sandbox and what it holds; undefined when no sandbox
   * works here (then no check may run, and results are unverified). Absent: checks cannot run.
   */
  checkEnvironment?(): Promise<CheckEnvironment | undefined>;
  /** Why checks cannot run here, in a sentence (when {@link checkEnvironment} is undefined). */
  checksUnavailable?(): Promise<string>;
}

/** Each run's own store for the objects its candidates write (see {@link Workspace}). */
export interface ScratchStores {
  /**
   * The workspace run `runId` works in: every object it writes (candidates' blobs and trees,
   * merges) goes to a scratch store of the run's own, and only a commit's tree is moved into the
   * repository, before the commit is made; refs move only to commits the repository holds. The
   * store outlives a crash (a resumed run finds its candidates there). Absent: objects are
   * written into the repository.
   */
  scratch?(runId: string): Promise<ScratchWorkspace>;
  /** Removes the scratch stores of runs not in `live` (finished runs, runs no longer in the state). */
  sweepScratch?(live: readonly string[]): Promise<void>;
}

/** A run's workspace over its scratch object store (see {@link Workspace.scratch}). */
export interface ScratchWorkspace extends Workspace {
  /** Stops what it holds open; the store stays (the run may be resumed). */
  close(): Promise<void>;
  /** {@link close}, and removes the store with everything the run's candidates wrote. */
  discard(): Promise<void>;
}
