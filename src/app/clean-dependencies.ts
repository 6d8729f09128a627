import { execFile } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { MakerError } from '../core/errors.js';
import { removeTree } from '../adapters/git/scratch.js';
import { WorkspaceLock } from '../adapters/state/lock.js';
import { gitBinary } from '../adapters/git/git-binary.js';

const execFileAsync = promisify(execFile);

/** What cleaning a repository's dependency cache did. */
export type CleanedDependencies =
  | { readonly repo: string; readonly root: string; readonly removed: false }
  | {
      readonly repo: string;
      readonly root: string;
      readonly removed: true;
      /** The installs removed (one directory each). */
      readonly entries: number;
      readonly bytes: number;
    };

/**
 * Removes the dependency cache of the repository at `dir` (`.git/maker-deps/`: installs for
 * checks, made again by the next check that needs them), unless an install is under way there
 * (`workspace-locked`, naming its process). A folder that is not a repository is refused
 * (`no-repository`); a repository without a cache is said, nothing done.
 */
export async function cleanDependencies(dir: string | undefined): Promise<CleanedDependencies> {
  const repo = resolve(dir ?? '.');
  const gitDir = await execFileAsync(gitBinary(), ['-C', repo, 'rev-parse', '--absolute-git-dir'])
    .then(({ stdout }) => stdout.trim())
    .catch(() => undefined);
  if (gitDir === undefined)
    throw new MakerError(
      'no-repository',
      `${repo} is not a git repository: there is no dependency cache to clean.`,
    );
  const root = join(gitDir, 'maker-deps');
  const names = await readdir(root).catch(() => undefined);
  if (names === undefined) return { repo, root, removed: false };
  for (const name of names.filter((n) => n.endsWith('.lock'))) {
    const held = await WorkspaceLock.inspect(join(root, name));
    if (held?.state === 'live')
      throw new MakerError(
        'workspace-locked',
        `An install is under way in ${root} (process ${held.owner.pid}): run maker doctor --clean-deps again when it has ended.`,
      );
  }
  const bytes = await execFileAsync('du', ['-sb', root])
    .then(({ stdout }) => Number(stdout.split(/\s/)[0]) || 0)
    .catch(() => 0);
  const entries = (
    await Promise.all(
      names.map(async (n) =>
        (await stat(join(root, n)).catch(() => undefined))?.isDirectory() === true ? 1 : 0,
      ),
    )
  ).reduce<number>((a, b) => a + b, 0);
  await removeTree(root);
  return { repo, root, removed: true, entries, bytes };
}
