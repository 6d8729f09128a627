import { existsSync } from 'node:fs';
import { lstat, readFile, readdir, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { isGitDirName, normalizeRepoPath } from '../../core/paths.js';
import { STATE_FILE_NAME, STATE_LOG_FILE_NAME } from '../../core/workspace-files.js';

/**
 * The repository directory a tool argument names, confined to the workspace: a relative path, no
 * `..` escape, nothing inside a `.git` directory, judged after symlinks are resolved. Returns the
 * real path (so two spellings of one directory are one workspace). The directory may not exist yet.
 */
export async function confineRepo(workspace: string, repo: string | undefined): Promise<string> {
  const root = await realpath(workspace).catch(() => {
    throw new UsageError(`The workspace ${workspace} does not exist.`);
  });
  const spec = (repo ?? '.').replace(/\/+$/, '') || '.';
  if (spec === '.') return root;
  const normal = normalizeRepoPath(spec);
  if (!normal.ok)
    throw new UsageError(
      `repo must be a directory inside the workspace (${root}): ${JSON.stringify(repo)} is ${normal.reason}.`,
    );
  const real = await resolveExisting(join(root, normal.path)).catch((error: unknown) => {
    if (error instanceof DanglingLinkError)
      throw new UsageError(
        `repo ${JSON.stringify(repo)} goes through ${error.link}, a symbolic link that leads nowhere (its target is missing, or it loops). Fix or remove the link, or name another directory.`,
      );
    throw error;
  });
  const inside = relative(root, real);
  if (inside.startsWith('..') || isAbsolute(inside))
    throw new UsageError(
      `repo ${JSON.stringify(repo)} leads outside the workspace (${root}) through a symbolic link.`,
    );
  if (inside.split(sep).some(isGitDirName))
    throw new UsageError(`repo ${JSON.stringify(repo)} leads into a .git directory.`);
  return real;
}

class DanglingLinkError extends Error {
  constructor(readonly link: string) {
    super(`${link} is a symbolic link that leads nowhere.`);
  }
}

/**
 * `path` with every existing leading component's symlinks resolved; the missing rest appended.
 * A component that exists but cannot be resolved (a dangling or looping link) is a {@link DanglingLinkError}.
 */
async function resolveExisting(path: string): Promise<string> {
  const parts = path.split(sep);
  for (let i = parts.length; i > 0; i--) {
    const head = parts.slice(0, i).join(sep) || sep;
    const real = await realpath(head).catch(() => undefined);
    if (real !== undefined) return join(real, ...parts.slice(i));
    if (
      await lstat(head).then(
        (s) => s.isSymbolicLink(),
        () => false,
      )
    )
      throw new DanglingLinkError(head);
  }
  return path;
}

const SKIP = new Set(['node_modules', 'dist', 'build', 'target', 'vendor']);

/**
 * The directory under `root` (itself included, at most `depth` levels down, symlinks not followed,
 * hidden and dependency folders skipped) whose state file holds run `runId`; undefined if none.
 */
export async function findRunDir(
  root: string,
  runId: string,
  depth = 3,
): Promise<string | undefined> {
  const needle = `${JSON.stringify(runId)}:`;
  // A run's id is in the snapshot, or (a run created since the last snapshot) in its log.
  const holds = async (dir: string) =>
    (await readFile(join(dir, STATE_FILE_NAME), 'utf8').catch(() => '')).includes(needle) ||
    (await readFile(join(dir, STATE_LOG_FILE_NAME), 'utf8').catch(() => '')).includes(
      `"run":${JSON.stringify(runId)}`,
    );
  for await (const dir of walk(root, depth)) if (await holds(dir)) return dir;
  return undefined;
}

/** The directories under `root` (as {@link findRunDir} searches) that hold a state file, nearest first. */
export async function findStateDirs(root: string, depth = 3): Promise<string[]> {
  const found: string[] = [];
  for await (const dir of walk(root, depth))
    if (existsSync(join(dir, STATE_FILE_NAME)) || existsSync(join(dir, STATE_LOG_FILE_NAME)))
      found.push(dir);
  return found;
}

/** `root` and the directories under it, breadth first, as {@link findRunDir} describes. */
async function* walk(root: string, depth: number): AsyncGenerator<string> {
  let level = [root];
  for (let d = 0; d <= depth && level.length > 0; d++) {
    yield* level;
    const next: string[] = [];
    for (const dir of level) {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const e of entries)
        if (e.isDirectory() && !e.name.startsWith('.') && !SKIP.has(e.name))
          next.push(join(dir, e.name));
    }
    level = next;
  }
}
