import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MakerError } from '../../core/errors.js';
import { unsafePathReason } from '../../core/paths.js';
import type { FileEdit } from '../../ports/workspace.js';
import type { GitPlumbing, TreeEntry } from './git-plumbing.js';
import { scratchDir } from './scratch.js';

/** A directory being edited: its entries by name (as latin1 of its bytes, so any name is a key). */
interface Dir {
  readonly entries: Map<string, TreeEntry>;
  /** Subdirectories loaded (and perhaps changed), by the same keys. */
  readonly subdirs: Map<string, Dir>;
  changed: boolean;
}

const TREE = '040000';

/**
 * The tree of `base` with whole-file edits applied, written by git: the blobs by one `hash-object
 * -w --stdin-paths` request, then only the changed directories by `mktree`, deepest first. It is
 * the tree a private index would give (`update-index --add`, `--force-remove`, `write-tree`): a
 * rewritten file keeps its executable bit, removing a missing path does nothing, a directory left
 * empty disappears; a path git would refuse, a file under a file, or a file where a directory is
 * throws `git-tree`.
 */
export async function treeWithEdits(
  git: GitPlumbing,
  scratchRoot: string,
  base: string,
  edits: readonly FileEdit[],
): Promise<string> {
  for (const edit of edits) {
    const reason = unsafePathReason(edit.path);
    if (reason !== undefined)
      throw new MakerError('git-tree', `git refuses ${JSON.stringify(edit.path)}: ${reason}.`);
  }
  const root: Dir = {
    entries: await entriesOf(git, await git.treeOf(base)),
    subdirs: new Map(),
    changed: false,
  };
  for (const edit of edits) if (edit.content === null) await remove(git, root, edit.path);
  const writes = edits.filter((e): e is FileEdit & { content: string } => e.content !== null);
  const blobs = await writeBlobs(git, scratchRoot, writes);
  for (const [i, edit] of writes.entries()) await put(git, root, edit.path, blobs[i] as string);
  if (!root.changed) return git.treeOf(base);
  return (await writeDir(git, root, true)) as string;
}

async function writeBlobs(
  git: GitPlumbing,
  scratchRoot: string,
  writes: readonly { content: string }[],
): Promise<string[]> {
  if (writes.length === 0) return [];
  const scratch = await scratchDir(scratchRoot, 'blobs');
  try {
    const files = await Promise.all(
      writes.map(async (edit, i) => {
        const file = join(scratch, `blob-${i}`);
        await writeFile(file, edit.content);
        return file;
      }),
    );
    return await git.hashFiles(files);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function entriesOf(git: GitPlumbing, tree: string): Promise<Map<string, TreeEntry>> {
  return new Map((await git.readTree(tree)).map((e) => [key(e.bytes ?? Buffer.from(e.name)), e]));
}

function key(name: Buffer | string): string {
  return (typeof name === 'string' ? Buffer.from(name) : name).toString('latin1');
}

/** The subdirectory `name` of `dir`: loaded, made (with `create`) when missing, or a file in the way. */
async function subdir(
  git: GitPlumbing,
  dir: Dir,
  name: string,
  create: boolean,
): Promise<Dir | 'missing' | 'file'> {
  const k = key(name);
  const loaded = dir.subdirs.get(k);
  if (loaded !== undefined) return loaded;
  const entry = dir.entries.get(k);
  if (entry === undefined && !create) return 'missing';
  if (entry !== undefined && entry.mode !== TREE) return 'file';
  const sub: Dir = {
    entries: entry === undefined ? new Map<string, TreeEntry>() : await entriesOf(git, entry.id),
    subdirs: new Map(),
    changed: entry === undefined,
  };
  dir.subdirs.set(k, sub);
  return sub;
}

/** `update-index --force-remove`: the file (or link) at `path` goes; a directory or a missing path stays. */
async function remove(git: GitPlumbing, root: Dir, path: string): Promise<void> {
  const names = path.split('/');
  const trail: Dir[] = [root];
  for (const name of names.slice(0, -1)) {
    const sub = await subdir(git, trail[trail.length - 1] as Dir, name, false);
    if (typeof sub === 'string') return;
    trail.push(sub);
  }
  const dir = trail[trail.length - 1] as Dir;
  const k = key(names[names.length - 1] as string);
  const entry = dir.entries.get(k);
  if (entry === undefined || entry.mode === TREE) return;
  dir.entries.delete(k);
  for (const d of trail) d.changed = true;
}

/** `update-index --add --cacheinfo`: a regular file at `path`, executable if the file it replaces was. */
async function put(git: GitPlumbing, root: Dir, path: string, blob: string): Promise<void> {
  const names = path.split('/');
  const trail: Dir[] = [root];
  for (const [i, name] of names.slice(0, -1).entries()) {
    const sub = await subdir(git, trail[trail.length - 1] as Dir, name, true);
    if (sub === 'file' || sub === 'missing')
      throw new MakerError(
        'git-tree',
        `Cannot write ${path}: ${names.slice(0, i + 1).join('/')} is a file.`,
      );
    trail.push(sub);
  }
  const dir = trail[trail.length - 1] as Dir;
  const name = names[names.length - 1] as string;
  const k = key(name);
  const old = dir.entries.get(k);
  const sub = dir.subdirs.get(k);
  if (old?.mode === TREE || sub !== undefined) {
    // A directory whose files were all removed is gone, as in an index; any other is in the way.
    if (sub === undefined || !isEmpty(sub))
      throw new MakerError('git-tree', `Cannot write ${path}: it is a directory.`);
    dir.subdirs.delete(k);
  }
  dir.entries.set(k, { mode: old?.mode === '100755' ? '100755' : '100644', name, id: blob });
  for (const d of trail) d.changed = true;
}

/** Whether a directory holds no file, at any depth (an unloaded subtree of the base always does). */
function isEmpty(dir: Dir): boolean {
  for (const [k, entry] of dir.entries) {
    const sub = dir.subdirs.get(k);
    if (entry.mode !== TREE || sub === undefined || !isEmpty(sub)) return false;
  }
  return [...dir.subdirs.values()].every(isEmpty);
}

/** Writes the changed directories under `dir` and `dir` itself; undefined for an empty non-root one. */
async function writeDir(git: GitPlumbing, dir: Dir, isRoot: boolean): Promise<string | undefined> {
  for (const [k, sub] of dir.subdirs) {
    if (!sub.changed) continue;
    const id = await writeDir(git, sub, false);
    const old = dir.entries.get(k);
    if (id === undefined) dir.entries.delete(k);
    else
      dir.entries.set(k, {
        mode: TREE,
        name: old?.name ?? Buffer.from(k, 'latin1').toString('utf8'),
        id,
        ...(old?.bytes === undefined ? {} : { bytes: old.bytes }),
      });
  }
  if (dir.entries.size === 0 && !isRoot) return undefined;
  return git.mktree([...dir.entries.values()]);
}
