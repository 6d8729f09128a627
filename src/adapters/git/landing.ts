import { lstat, rm, stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { MakerError } from '../../core/errors.js';

/** The git access a landing needs: commands in the repository, and the crash-test seam. */
export interface LandingGit {
  readonly dir: string;
  /** Runs git; resolves with stdout, rejects on a non-zero exit. */
  raw(args: readonly string[]): Promise<string>;
  /** Runs git; resolves with whether it exited 0 (for commands that answer by exit status). */
  ok(args: readonly string[]): Promise<boolean>;
  checkpoint(step: string): Promise<void>;
}

/** An `index.lock` older than this, met while finishing a recorded landing, is a killed git's. */
const ABANDONED_LOCK_MS = 10_000;

/**
 * Brings the checked-out working tree and index of `target` from `from` to `to`, from wherever an
 * earlier, interrupted attempt left them:
 * - index at `to` and the working tree matching it: done already;
 * - index at `from` and nothing else changed: `read-tree -m -u from to` (git itself refuses to
 *   overwrite an untracked file);
 * - index at `from` and the only changes are files already written as `to` has them (a
 *   `read-tree` killed part-way): the rest is written with `read-tree --reset -u to`;
 * - anything else is a person's own work: refused, untouched.
 */
export async function syncWorkTree(
  git: LandingGit,
  target: string,
  from: string,
  to: string,
): Promise<void> {
  await clearAbandonedIndexLock(git);
  await git.raw(['update-index', '-q', '--refresh']).catch(() => undefined);
  const [fromTree, toTree] = await treesOf(git, from, to);
  const modified = split(await git.raw(['diff-files', '--name-only', '-z']));
  if (await git.ok(['diff-index', '--cached', '--quiet', toTree, '--'])) {
    if (modified.length === 0) return;
    throw dirty(target, modified);
  }
  if (!(await git.ok(['diff-index', '--cached', '--quiet', fromTree, '--'])))
    throw dirty(
      target,
      split(await git.raw(['diff-index', '--cached', '--name-only', '-z', fromTree])),
    );
  const landing = parseNameStatus(
    await git.raw(['diff-tree', '-r', '--no-renames', '--name-status', '-z', fromTree, toTree]),
  );
  // Files `to` adds that are already on disk: written by an interrupted landing, or a person's.
  const added = [...landing].filter(([, status]) => status === 'A').map(([path]) => path);
  const present = await existing(git.dir, added);
  const strays = [...new Set([...modified, ...present])];
  if (strays.length === 0) {
    await git.checkpoint('land:read-tree');
    await readTree(git, target, ['read-tree', '-m', '-u', from, to]);
    return;
  }
  const foreign = await notAsIn(git, to, strays, landing);
  if (foreign.length > 0) throw dirty(target, foreign);
  await git.checkpoint('land:read-tree');
  await readTree(git, target, ['read-tree', '--reset', '-u', to]);
}

/** The trees of two commits, from one git process; each must be a commit's. */
async function treesOf(git: LandingGit, from: string, to: string): Promise<[string, string]> {
  const out = (await git.raw(['rev-parse', `${from}^{tree}`, `${to}^{tree}`])).trim();
  const [fromTree = '', toTree = '', ...more] = out.split('\n');
  if (more.length > 0 || ![fromTree, toTree].every((t) => /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(t)))
    throw new MakerError('git', `git rev-parse gave no trees for ${from} and ${to}: ${out}`);
  return [fromTree, toTree];
}

/** The paths among `paths` whose working-tree state is not what `to` has (or are not part of the landing). */
async function notAsIn(
  git: LandingGit,
  to: string,
  paths: readonly string[],
  landing: ReadonlyMap<string, string>,
): Promise<string[]> {
  const expected = new Map<string, string>();
  const listing = await git.raw(['ls-tree', '-z', to, '--', ...paths]);
  for (const entry of split(listing)) {
    const tab = entry.indexOf('\t');
    const [mode, , id] = entry.slice(0, tab).split(' ');
    // Only regular files are compared by content; anything else must be rewritten by git.
    if (mode === '100644' || mode === '100755') expected.set(entry.slice(tab + 1), id as string);
  }
  const onDisk = new Set(await existing(git.dir, paths));
  const hashed = [...onDisk].filter((p) => expected.has(p));
  const ids =
    hashed.length === 0 ? [] : (await git.raw(['hash-object', '--', ...hashed])).trim().split('\n');
  const actual = new Map(hashed.map((p, i) => [p, ids[i]]));
  return paths.filter((p) => {
    if (!landing.has(p)) return true;
    if (!onDisk.has(p)) return expected.has(p); // missing: fine only if `to` deletes it
    return actual.get(p) === undefined || actual.get(p) !== expected.get(p);
  });
}

async function readTree(git: LandingGit, target: string, args: string[]): Promise<void> {
  try {
    await git.raw(args);
  } catch (error) {
    const message = (error as Error).message;
    const files = [...message.matchAll(/^\s+(\S.*)$/gm)].map((m) => m[1] as string);
    throw new MakerError(
      'git-land-dirty',
      `Landing on ${target} would overwrite files that are not MAKER's${files.length > 0 ? ` (${files.slice(0, 5).join(', ')})` : ''}: move them aside, then resume to land the result. Nothing was changed.`,
      { cause: error },
    );
  }
}

function dirty(target: string, paths: readonly string[]): MakerError {
  return new MakerError(
    'git-land-dirty',
    `${target} is checked out with uncommitted changes of yours${paths.length > 0 ? ` (${paths.slice(0, 5).join(', ')}${paths.length > 5 ? ', …' : ''})` : ''}; MAKER did not touch them. Commit or stash them, then resume to land the result.`,
  );
}

async function clearAbandonedIndexLock(git: LandingGit): Promise<void> {
  const rel = (await git.raw(['rev-parse', '--git-path', 'index.lock'])).trim();
  const path = isAbsolute(rel) ? rel : join(git.dir, rel);
  const age = await stat(path).then(
    (s) => Date.now() - s.mtimeMs,
    () => undefined,
  );
  if (age === undefined) return;
  if (age < ABANDONED_LOCK_MS)
    throw new MakerError(
      'git-land-busy',
      `Another git command is working in ${git.dir} (${path} exists): let it finish, then resume.`,
    );
  await rm(path, { force: true });
}

async function existing(dir: string, paths: readonly string[]): Promise<string[]> {
  const found = await Promise.all(
    paths.map((p) =>
      lstat(join(dir, p)).then(
        () => true,
        () => false,
      ),
    ),
  );
  return paths.filter((_, i) => found[i]);
}

function parseNameStatus(out: string): Map<string, string> {
  const parts = split(out);
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < parts.length; i += 2) map.set(parts[i + 1] as string, parts[i] as string);
  return map;
}

function split(out: string): string[] {
  return out.split('\0').filter((p) => p !== '');
}
