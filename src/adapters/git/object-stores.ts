import { copyFile, link, mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { MakerError } from '../../core/errors.js';
import type { GitPlumbing } from './git-plumbing.js';
import { removeTree } from './scratch.js';
import { runGit, type GitOptions } from './run-git.js';

/**
 * Scratch object stores: a run's candidates are written into a store of their own, never into
 * the repository's object store. git reads such a store with the repository's objects as an
 * alternate (`GIT_OBJECT_DIRECTORY` the store, `GIT_ALTERNATE_OBJECT_DIRECTORIES` the
 * repository's), so a candidate's tree and blobs can be diffed, judged and checked out; a commit
 * copies only its own tree's objects into the repository first ({@link promoteTree}). What a
 * red-flagged or losing candidate wrote (a key, a large file) never reaches the repository, and
 * goes with its store when the run ends.
 *
 * A store is `<git dir>/maker-scratch/<run id>/objects`, under the work tree's own git directory (a
 * linked work tree keeps its state, and so its runs, apart).
 */

/** The directory holding every run's store in the repository whose own git directory is `gitDir`. */
export function storesRoot(gitDir: string): string {
  return join(gitDir, 'maker-scratch');
}

/** A run's store (its objects directory), made if missing. */
export async function openStore(gitDir: string, runId: string): Promise<string> {
  const objects = join(storesRoot(gitDir), storeName(runId), 'objects');
  await mkdir(join(objects, 'info'), { recursive: true });
  await mkdir(join(objects, 'pack'), { recursive: true });
  return objects;
}

/** The environment git needs to write into `store` and read it with `mainObjects` behind it. */
export function storeEnv(store: string, mainObjects: string): Record<string, string> {
  return {
    GIT_OBJECT_DIRECTORY: store,
    GIT_ALTERNATE_OBJECT_DIRECTORIES: alternates([mainObjects]),
  };
}

/**
 * Object directories as `GIT_ALTERNATE_OBJECT_DIRECTORIES` lists them: `:`-separated, a path
 * holding `:`, `"` or `\` in git's C-style quotes.
 */
export function alternates(dirs: readonly string[]): string {
  return dirs
    .map((d) => (/[:"\\]/.test(d) ? `"${d.replace(/[\\"]/g, (c) => `\\${c}`)}"` : d))
    .join(':');
}

/** Removes the stores of runs not in `live` (run ids); one that cannot be removed is left. */
export async function sweepStores(gitDir: string, live: readonly string[]): Promise<void> {
  const root = storesRoot(gitDir);
  const keep = new Set(live.map(storeName));
  for (const name of await readdir(root).catch(() => [] as string[]))
    if (!keep.has(name)) await removeTree(join(root, name)).catch(() => undefined);
  await rmdir(root).catch(() => undefined); // only when empty
}

/** Removes one run's store. */
export async function removeStore(gitDir: string, runId: string): Promise<void> {
  await removeTree(join(storesRoot(gitDir), storeName(runId)));
  await rmdir(storesRoot(gitDir)).catch(() => undefined); // only when empty
}

/** Every store's objects directory now in the repository (for reading a candidate from outside its run). */
export async function existingStores(gitDir: string): Promise<string[]> {
  const root = storesRoot(gitDir);
  const names = await readdir(root).catch(() => [] as string[]);
  return names.map((name) => join(root, name, 'objects'));
}

/** A run id as a directory name: anything but letters, digits, `.`, `_` and `-` is escaped. */
function storeName(runId: string): string {
  const safe = runId.replace(/[^A-Za-z0-9._-]/g, (c) => `%${c.charCodeAt(0).toString(16)}`);
  return safe === '' || /^\.+$/.test(safe) ? `%${safe}` : safe;
}

/** What {@link promoteTree} reads and writes. */
export interface Promotion {
  /** Reads the repository's objects only (no store): what it finds is there with all it reaches. */
  readonly main: GitPlumbing;
  /** Reads the store with the repository's objects behind it. */
  readonly scratch: GitPlumbing;
  readonly store: string;
  readonly mainObjects: string;
  /** The repository's directory and git options, for an object that is not a loose file. */
  readonly dir: string;
  readonly git: GitOptions;
}

/**
 * Copies the objects of `tree` that the repository lacks from the store into the repository,
 * deepest first: an object the repository holds always has everything it reaches there too, so a
 * copy cut short by a kill leaves nothing that points at a missing object, and the walk stops at
 * the first subtree the repository already holds (a candidate's changed directories and files,
 * not the whole tree). Throws `git` when an object is in neither place.
 */
export async function promoteTree(p: Promotion, tree: string): Promise<void> {
  const missing = new Set<string>();
  const children = new Map<string, string[]>();
  const seen = new Set<string>();
  let frontier = [tree];
  while (frontier.length > 0) {
    const ids = [...new Set(frontier)].filter((id) => !seen.has(id));
    for (const id of ids) seen.add(id);
    const held = await p.main.info(ids);
    const wanted = ids.filter((_, i) => held[i] === undefined);
    if (wanted.length === 0) break;
    const found = await p.scratch.info(wanted);
    const lost = wanted.filter((_, i) => found[i] === undefined);
    if (lost.length > 0)
      throw new MakerError(
        'git',
        `Object ${lost[0] ?? ''} of tree ${tree} is neither in the repository nor in its run's scratch store.`,
      );
    for (const id of wanted) missing.add(id);
    const trees = wanted.filter((_, i) => found[i]?.type === 'tree');
    const entries = await Promise.all(trees.map((id) => p.scratch.readTree(id)));
    for (const [i, id] of trees.entries())
      children.set(
        id,
        (entries[i] ?? []).flatMap((e) => (e.mode === '160000' ? [] : [e.id])),
      );
    frontier = [...children.values()].flat().filter((id) => !seen.has(id));
  }
  // By height (an object only reaches lower ones), lowest first: never a tree before its entries.
  const heights = new Map<string, number>();
  const height = (id: string): number => {
    const known = heights.get(id);
    if (known !== undefined) return known;
    const below = (children.get(id) ?? []).filter((c) => missing.has(c)).map(height);
    const h = below.length === 0 ? 0 : Math.max(...below) + 1;
    heights.set(id, h);
    return h;
  };
  const waves: string[][] = [];
  for (const id of missing) (waves[height(id)] ??= []).push(id);
  for (const wave of waves)
    if (wave !== undefined) await Promise.all(wave.map((id) => promoteObject(p, id)));
}

/**
 * Puts one loose object file of the store into the repository: a hard link (the store is in the
 * same `.git`, so nothing is copied and nothing more is written), else a copy under a temporary
 * name renamed into place; an object the store holds packed is written again from its content.
 */
async function copyObject(p: Promotion, id: string): Promise<void> {
  const rel = join(id.slice(0, 2), id.slice(2));
  const source = join(p.store, rel);
  const target = join(p.mainObjects, rel);
  const linked = await linkObject(source, target).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT' || !(await exists(source))) throw error;
    await mkdir(join(p.mainObjects, id.slice(0, 2)), { recursive: true });
    return linkObject(source, target);
  });
  if (linked) return;
  const temp = join(p.mainObjects, id.slice(0, 2), `tmp_maker_${randomBytes(6).toString('hex')}`);
  try {
    await copyFile(source, temp);
    await rename(temp, target);
  } finally {
    await rm(temp, { force: true });
  }
}

/** Links `source` as `target`: true when done (or there already), false where links do not work. */
async function linkObject(source: string, target: string): Promise<boolean> {
  try {
    await link(source, target);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return true;
    if (code === 'EXDEV' || code === 'EPERM' || code === 'EMLINK' || code === 'ENOTSUP')
      return false;
    throw error;
  }
}

/** {@link copyObject}, or, for an object that is not a loose file of the store, its content written again. */
async function promoteObject(p: Promotion, id: string): Promise<void> {
  try {
    await copyObject(p, id);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const object = (await p.scratch.contents([id])).get(id);
    if (object === undefined) throw new MakerError('git', `Object ${id} vanished from the store.`);
    await runGit(p.dir, ['hash-object', '-w', '-t', object.type, '--stdin'], {
      ...p.git,
      input: object.content,
    });
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
