import type { TreeChange } from '../../core/candidate-policy.js';
import type { GitPlumbing, TreeEntry } from './git-plumbing.js';

/** The entries that differ between two trees, recursively, with modes, blob ids and new sizes. */
export async function readChanges(
  git: GitPlumbing,
  from: string,
  to: string,
): Promise<TreeChange[]> {
  const parts = (await git.rawChanges(from, to)).toString('utf8').split('\0');
  const changes: TreeChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const [oldMode, newMode, oldBlob, newBlob, status] = (parts[i] as string).slice(1).split(' ');
    const path = parts[i + 1] as string;
    const kind =
      status === 'A'
        ? 'added'
        : status === 'D'
          ? 'deleted'
          : status === 'T'
            ? 'type-changed'
            : 'modified';
    changes.push({
      path,
      status: kind,
      ...(kind === 'added' ? {} : { oldMode, oldBlob }),
      ...(kind === 'deleted' ? {} : { newMode, newBlob }),
    });
  }
  const sized = changes.filter((c) => c.newBlob !== undefined && c.newMode !== '160000');
  if (sized.length === 0) return changes;
  const infos = await git.info(sized.map((c) => c.newBlob as string));
  const sizes = new Map(sized.map((c, i) => [c.newBlob, infos[i]?.size]));
  return changes.map((c) => {
    const size = c.newBlob === undefined ? undefined : sizes.get(c.newBlob);
    return size === undefined ? c : { ...c, newSize: size };
  });
}

/** Blob contents by id, byte for byte; non-blobs and missing ids are left out. */
export async function readBlobs(
  git: GitPlumbing,
  ids: readonly string[],
): Promise<Map<string, Uint8Array>> {
  const unique = [...new Set(ids)];
  const blobs = new Map<string, Uint8Array>();
  for (const [id, object] of await git.contents(unique))
    if (object.type === 'blob') blobs.set(id, object.content);
  return blobs;
}

/**
 * The entries (mode and object id) of `paths` that exist in a tree, as `git ls-tree treeish --
 * paths` lists them (a directory's own entry for a directory), read through the trees on the way.
 */
export async function readEntries(
  git: GitPlumbing,
  treeish: string,
  paths: readonly string[],
): Promise<Map<string, { mode: string; id: string }>> {
  const entries = new Map<string, { mode: string; id: string }>();
  if (paths.length === 0) return entries;
  const trees = new Map<string, Promise<Map<string, TreeEntry>>>();
  const listing = (id: string) => {
    let found = trees.get(id);
    if (found === undefined) {
      found = git.readTree(id).then((list) => new Map(list.map((e) => [e.name, e])));
      trees.set(id, found);
    }
    return found;
  };
  const root = await git.treeOf(treeish);
  await Promise.all(
    paths.map(async (path) => {
      let entry: TreeEntry | undefined = { mode: '040000', name: '', id: root };
      for (const name of path.split('/')) {
        if (entry?.mode !== '040000' || name === '') return;
        entry = (await listing(entry.id)).get(name);
      }
      if (entry !== undefined) entries.set(path, { mode: entry.mode, id: entry.id });
    }),
  );
  return entries;
}

/** The git mode of each of `paths` that exists in a tree. */
export async function readModes(
  git: GitPlumbing,
  treeish: string,
  paths: readonly string[],
): Promise<Map<string, string>> {
  const entries = await readEntries(git, treeish, paths);
  return new Map([...entries].map(([path, e]) => [path, e.mode]));
}

/** Contents of `paths` at a commit or tree, as text (`null` where a path does not exist). */
export async function readFilesAt(
  git: GitPlumbing,
  treeish: string,
  paths: readonly string[],
): Promise<{ path: string; content: string | null }[]> {
  const ids = await readEntries(git, treeish, paths);
  const blobs = await readBlobs(
    git,
    [...ids.values()].map((e) => e.id),
  );
  return paths.map((path) => {
    const id = ids.get(path)?.id;
    const blob = id === undefined ? undefined : blobs.get(id);
    return { path, content: blob === undefined ? null : Buffer.from(blob).toString('utf8') };
  });
}
