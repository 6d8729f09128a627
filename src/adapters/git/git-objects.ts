import type { TreeChange } from '../../core/candidate-policy.js';
import { parseCatFileBatch, runGit } from './run-git.js';

/** The entries that differ between two trees, recursively, with modes, blob ids and new sizes. */
export async function readChanges(dir: string, from: string, to: string): Promise<TreeChange[]> {
  const out = await runGit(dir, ['diff-tree', '-r', '-z', '--no-renames', from, to]);
  const parts = out.toString('utf8').split('\0');
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
  const sizes = new Map(
    (
      await runGit(dir, ['cat-file', '--batch-check'], {
        input: `${sized.map((c) => c.newBlob).join('\n')}\n`,
      })
    )
      .toString('utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' '))
      .map(([id, , size]) => [id, Number(size)] as const),
  );
  return changes.map((c) =>
    c.newBlob !== undefined && sizes.has(c.newBlob) ? { ...c, newSize: sizes.get(c.newBlob) } : c,
  );
}

/** Blob contents by id, byte for byte, in one `git cat-file --batch`; non-blobs and missing ids are left out. */
export async function readBlobs(
  dir: string,
  ids: readonly string[],
): Promise<Map<string, Uint8Array>> {
  if (ids.length === 0) return new Map();
  const out = await runGit(dir, ['cat-file', '--batch'], { input: `${ids.join('\n')}\n` });
  const blobs = new Map<string, Uint8Array>();
  for (const [id, object] of parseCatFileBatch(out))
    if (object.type === 'blob') blobs.set(id, object.content);
  return blobs;
}

/** The entries (mode and object id) of `paths` that exist in a tree, in one `git ls-tree`. */
export async function readEntries(
  dir: string,
  treeish: string,
  paths: readonly string[],
): Promise<Map<string, { mode: string; id: string }>> {
  if (paths.length === 0) return new Map();
  // Literal pathspecs: a path with `*` or `?` names that file, not a pattern.
  const out = await runGit(dir, ['ls-tree', '-z', treeish, '--', ...paths], {
    env: { GIT_LITERAL_PATHSPECS: '1' },
  });
  const entries = new Map<string, { mode: string; id: string }>();
  for (const entry of out.toString('utf8').split('\0')) {
    const tab = entry.indexOf('\t');
    if (tab < 0) continue;
    const [mode, , id] = entry.slice(0, tab).split(' ');
    if (mode !== undefined && id !== undefined) entries.set(entry.slice(tab + 1), { mode, id });
  }
  return entries;
}

/** The git mode of each of `paths` that exists in a tree. */
export async function readModes(
  dir: string,
  treeish: string,
  paths: readonly string[],
): Promise<Map<string, string>> {
  const entries = await readEntries(dir, treeish, paths);
  return new Map([...entries].map(([path, e]) => [path, e.mode]));
}
