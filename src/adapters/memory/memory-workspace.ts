import { createHash } from 'node:crypto';
import type { TreeChange } from '../../core/candidate-policy.js';
import type { FileStat } from '../../core/diffstat.js';
import { applyHunks, readUnifiedDiff } from '../../core/unified-diff.js';
import { MakerError } from '../../core/errors.js';
import type {
  ApplyResult,
  CommitRequest,
  FileEdit,
  MergeResult,
  Workspace,
} from '../../ports/workspace.js';
import { EMPTY_TREE } from '../../ports/workspace.js';

type Tree = ReadonlyMap<string, string>;

/**
 * A stored tree: its whole path map, or the paths changed over another stored tree (`null`:
 * deleted there). Trees a run makes differ from the one they are made from in a few paths (an
 * edit, a patch, a merge that brings a subtree in), so each keeps only those, as git's objects share
 * what did not change; a chain is cut back to a whole map every {@link MAX_CHAIN} trees.
 */
interface StoredTree {
  readonly over: StoredTree | undefined;
  readonly paths: ReadonlyMap<string, string | null>;
  readonly chain: number;
}

const MAX_CHAIN = 16;

function lookUp(tree: StoredTree, path: string): string | undefined {
  for (let t: StoredTree | undefined = tree; t !== undefined; t = t.over) {
    const content = t.paths.get(path);
    if (content !== undefined) return content ?? undefined;
  }
  return undefined;
}

function wholeMap(tree: StoredTree): Map<string, string> {
  const layers: StoredTree[] = [];
  for (let t: StoredTree | undefined = tree; t !== undefined; t = t.over) layers.push(t);
  const whole = new Map<string, string>();
  for (let i = layers.length - 1; i >= 0; i--)
    for (const [path, content] of (layers[i] as StoredTree).paths)
      if (content === null) whole.delete(path);
      else whole.set(path, content);
  return whole;
}
interface Commit {
  readonly tree: string;
  readonly parents: readonly string[];
}

/**
 * An in-memory {@link Workspace}: content-addressed trees and commits, branches with
 * compare-and-swap, three-way merges by whole file. For benchmarks of the engine's scheduling and
 * for fast tests; it does not run checks. Patches are the whole-file hunks its own `diff` writes,
 * or ordinary unified diffs whose context matches exactly.
 */
export class MemoryWorkspace implements Workspace {
  readonly #trees = new Map<string, StoredTree>();
  readonly #commits = new Map<string, Commit>();
  readonly #refs = new Map<string, string>();
  readonly #blobs = new Map<string, string>();

  constructor(files: Readonly<Record<string, string>> = {}, branch = 'main') {
    const tree = this.#putTree(new Map(Object.entries(files)));
    this.#refs.set(branch, this.#putCommit({ tree, parents: [] }, 'Initial commit', 0));
  }

  resolve(ref: string): Promise<string | undefined> {
    const name = ref === 'HEAD' ? 'main' : ref;
    return Promise.resolve(this.#refs.get(name) ?? (this.#commits.has(ref) ? ref : undefined));
  }

  treeOf(treeish: string): Promise<string> {
    return Promise.resolve(this.#treeId(treeish));
  }

  listFiles(treeish: string): Promise<string[]> {
    return Promise.resolve([...this.#tree(treeish).keys()].sort());
  }

  readFiles(treeish: string, paths: readonly string[]): Promise<FileEdit[]> {
    const tree = this.#stored(treeish);
    return Promise.resolve(
      paths.map((path) => ({ path, content: (tree && lookUp(tree, path)) ?? null })),
    );
  }

  treeWithEdits(base: string, edits: readonly FileEdit[]): Promise<string> {
    const tree = new Map(this.#tree(base));
    for (const edit of edits) {
      if (edit.content === null) tree.delete(edit.path);
      else tree.set(edit.path, edit.content);
    }
    return Promise.resolve(this.#putTree(tree, base));
  }

  applyPatch(base: string, patch: string): Promise<ApplyResult> {
    const tree = new Map(this.#tree(base));
    for (const section of readUnifiedDiff(patch)) {
      const { minusPath: oldPath, plusPath: newPath } = section;
      if (oldPath === null || newPath === null)
        return Promise.resolve({ ok: false, reason: 'a file section has no ---/+++ lines' });
      const name = oldPath ?? newPath ?? '/dev/null';
      if (section.stray.length > 0 || section.hunks.some((h) => h.short))
        return Promise.resolve({ ok: false, reason: `${name}: corrupt patch` });
      const before = oldPath === undefined ? [] : tree.get(oldPath)?.split('\n').slice(0, -1);
      if (before === undefined)
        return Promise.resolve({ ok: false, reason: `${name}: No such file` });
      const after = applyHunks(before, section.hunks);
      if (after === undefined)
        return Promise.resolve({ ok: false, reason: `${name}: patch does not apply` });
      if (oldPath !== undefined) tree.delete(oldPath);
      if (newPath !== undefined)
        tree.set(newPath, after.length === 0 ? '' : `${after.join('\n')}\n`);
    }
    return Promise.resolve({ ok: true, tree: this.#putTree(tree, base) });
  }

  diff(from: string, to: string): Promise<string> {
    const out: string[] = [];
    for (const [path, x, y] of this.#differing(from, to)) {
      const xs = x === undefined ? [] : x.split('\n').slice(0, -1);
      const ys = y === undefined ? [] : y.split('\n').slice(0, -1);
      out.push(
        `diff --git a/${path} b/${path}`,
        ...(x === undefined
          ? ['new file mode 100644']
          : y === undefined
            ? ['deleted file mode 100644']
            : []),
        `--- ${x === undefined ? '/dev/null' : `a/${path}`}`,
        `+++ ${y === undefined ? '/dev/null' : `b/${path}`}`,
        `@@ -${xs.length === 0 ? 0 : 1},${xs.length} +${ys.length === 0 ? 0 : 1},${ys.length} @@`,
        ...xs.map((l) => `-${l}`),
        ...ys.map((l) => `+${l}`),
      );
    }
    return Promise.resolve(out.length === 0 ? '' : `${out.join('\n')}\n`);
  }

  /** What {@link diff}'s whole-file hunks count: every line of the old file out, of the new in. */
  fileStats(from: string, to: string): Promise<FileStat[]> {
    const lines = (text: string | undefined) =>
      text === undefined ? 0 : text.split('\n').length - 1;
    return Promise.resolve(
      [...this.#differing(from, to)].map(([path, x, y]) => ({
        path,
        added: lines(y),
        removed: lines(x),
        binary: false,
      })),
    );
  }

  /** The paths whose content differs from `from` to `to`, sorted, with both contents (absent: undefined). */
  *#differing(
    from: string,
    to: string,
  ): Generator<[string, string | undefined, string | undefined]> {
    const a = this.#tree(from);
    const b = this.#tree(to);
    for (const path of [...new Set([...a.keys(), ...b.keys()])].sort()) {
      const x = a.get(path);
      const y = b.get(path);
      if (x !== y) yield [path, x, y];
    }
  }

  commit(request: CommitRequest): Promise<string> {
    return Promise.resolve(
      this.#putCommit(
        { tree: request.tree, parents: request.parents },
        request.message,
        request.date.getTime(),
      ),
    );
  }

  setBranch(name: string, commit: string, expected?: string | null): Promise<void> {
    const current = this.#refs.get(name);
    if (expected !== undefined && (current ?? null) !== expected)
      return Promise.reject(
        new MakerError(
          'git-ref-moved',
          `Branch ${name} did not point where expected; it was not moved.`,
        ),
      );
    this.#refs.set(name, commit);
    return Promise.resolve();
  }

  merge(ours: string, theirs: string): Promise<MergeResult> {
    const base = this.#mergeBase(ours, theirs);
    const [o, t, b] = [
      this.#tree(ours),
      this.#tree(theirs),
      base === undefined ? new Map<string, string>() : this.#tree(base),
    ];
    const merged = new Map<string, string>();
    const conflicts: string[] = [];
    for (const path of [...new Set([...o.keys(), ...t.keys(), ...b.keys()])].sort()) {
      const [x, y, z] = [o.get(path), t.get(path), b.get(path)];
      let result: string | undefined;
      if (x === y || y === z) result = x;
      else if (x === z) result = y;
      else {
        conflicts.push(path);
        result = `<<<<<<< ours\n${x ?? ''}=======\n${y ?? ''}>>>>>>> theirs\n`;
      }
      if (result !== undefined) merged.set(path, result);
    }
    const tree = this.#putTree(merged, ours);
    return Promise.resolve(
      conflicts.length === 0 ? { ok: true, tree } : { ok: false, tree, conflicts },
    );
  }

  async planLanding(
    target: string,
    commit: string,
    expectedHead: string,
    message: string,
    date: Date,
  ): Promise<{ from: string; to: string }> {
    const head = this.#refs.get(target);
    if (head === undefined) throw new MakerError('git-land', `Branch ${target} does not exist.`);
    if (head === commit || this.#ancestors(head).has(commit)) return { from: head, to: head };
    if (head === expectedHead || this.#ancestors(commit).has(head))
      return { from: head, to: commit };
    const merged = await this.merge(head, commit);
    if (!merged.ok)
      throw new MakerError(
        'git-land',
        `${target} moved and the result conflicts in ${merged.conflicts.join(', ')}.`,
      );
    const to = await this.commit({ tree: merged.tree, parents: [head, commit], message, date });
    return { from: head, to };
  }

  async completeLanding(target: string, from: string, to: string): Promise<void> {
    const head = this.#refs.get(target);
    if (head === to) return;
    if (head !== from)
      throw new MakerError('git-land-moved', `${target} moved since the landing was planned.`);
    await this.setBranch(target, to, from);
  }

  changes(from: string, to: string): Promise<TreeChange[]> {
    const before = this.#tree(from);
    const after = this.#tree(to);
    const changes: TreeChange[] = [];
    for (const path of new Set([...before.keys(), ...after.keys()])) {
      const old = before.get(path);
      const now = after.get(path);
      if (old === now) continue;
      changes.push({
        path,
        status: old === undefined ? 'added' : now === undefined ? 'deleted' : 'modified',
        ...(old === undefined ? {} : { oldMode: '100644', oldBlob: this.#putBlob(old) }),
        ...(now === undefined
          ? {}
          : { newMode: '100644', newBlob: this.#putBlob(now), newSize: Buffer.byteLength(now) }),
      });
    }
    return Promise.resolve(changes.sort((a, b) => (a.path < b.path ? -1 : 1)));
  }

  readBlobs(ids: readonly string[]): Promise<Map<string, Uint8Array>> {
    const out = new Map<string, Uint8Array>();
    for (const id of ids) {
      const content = this.#blobs.get(id);
      if (content !== undefined) out.set(id, Buffer.from(content));
    }
    return Promise.resolve(out);
  }

  modes(treeish: string, paths: readonly string[]): Promise<Map<string, string>> {
    const tree = this.#tree(treeish);
    const modes = new Map<string, string>();
    for (const path of paths) {
      if (tree.has(path)) modes.set(path, '100644');
      else if ([...tree.keys()].some((p) => p.startsWith(`${path}/`))) modes.set(path, '040000');
    }
    return Promise.resolve(modes);
  }

  runCheck(): Promise<{ ok: boolean; output: string }> {
    return Promise.resolve({ ok: false, output: 'checks need a real repository' });
  }

  /** The tree's whole path map: made for the caller (it may keep it, or change it). */
  #tree(treeish: string): Tree {
    const tree = this.#stored(treeish);
    return tree === undefined ? new Map() : wholeMap(tree);
  }

  /** The stored tree; undefined for the empty tree. */
  #stored(treeish: string): StoredTree | undefined {
    if (treeish === EMPTY_TREE) return undefined;
    const tree = this.#trees.get(this.#treeId(treeish));
    if (tree === undefined) throw new MakerError('git-object', `No tree ${treeish}.`);
    return tree;
  }

  #treeId(treeish: string): string {
    const ref = this.#refs.get(treeish) ?? treeish;
    return this.#commits.get(ref)?.tree ?? ref;
  }

  /** Stores a whole path map (made from the tree `from`, when it was: then only what differs). */
  #putTree(tree: Map<string, string>, from?: string): string {
    const sorted = [...tree].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const hash = createHash('sha1');
    for (const [path, content] of sorted) hash.update(`${path}\0${content.length}\0${content}`);
    const id = hash.digest('hex');
    if (this.#trees.has(id)) return id;
    const over = from === undefined ? undefined : this.#stored(from);
    if (over === undefined || over.chain >= MAX_CHAIN) {
      this.#trees.set(id, { over: undefined, paths: new Map(sorted), chain: 0 });
      return id;
    }
    const base = wholeMap(over);
    const changed = new Map<string, string | null>();
    for (const [path, content] of sorted)
      if (base.get(path) !== content) changed.set(path, content);
    for (const path of base.keys()) if (!tree.has(path)) changed.set(path, null);
    this.#trees.set(
      id,
      changed.size * 2 > tree.size
        ? { over: undefined, paths: new Map(sorted), chain: 0 }
        : { over, paths: changed, chain: over.chain + 1 },
    );
    return id;
  }

  #putBlob(content: string): string {
    const id = createHash('sha1')
      .update(`blob ${Buffer.byteLength(content)}\0${content}`)
      .digest('hex');
    this.#blobs.set(id, content);
    return id;
  }

  #putCommit(commit: Commit, message: string, time: number): string {
    const id = createHash('sha1')
      .update(`${commit.tree}\0${commit.parents.join(',')}\0${message}\0${time}`)
      .digest('hex');
    if (!this.#commits.has(id)) this.#commits.set(id, commit);
    return id;
  }

  #ancestors(commit: string): Set<string> {
    const seen = new Set<string>();
    const stack = [commit];
    while (stack.length > 0) {
      const c = stack.pop() as string;
      if (seen.has(c)) continue;
      seen.add(c);
      stack.push(...(this.#commits.get(c)?.parents ?? []));
    }
    return seen;
  }

  #mergeBase(a: string, b: string): string | undefined {
    const ancestorsOfA = this.#ancestors(a);
    const queue = [b];
    const seen = new Set<string>();
    while (queue.length > 0) {
      const c = queue.shift() as string;
      if (ancestorsOfA.has(c)) return c;
      if (seen.has(c)) continue;
      seen.add(c);
      queue.push(...(this.#commits.get(c)?.parents ?? []));
    }
    return undefined;
  }
}
