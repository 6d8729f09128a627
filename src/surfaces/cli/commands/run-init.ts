import { readdir } from 'node:fs/promises';
import { configuredIdentity } from '../../../adapters/git/git-repo.js';
import { UsageError } from '../../../core/errors.js';
import type { LockOwner } from '../../../adapters/state/lock.js';
import { MAKER_FILE } from '../../../core/paths.js';
import type { CliIo } from '../io.js';
import { askLine } from '../prompt.js';

/**
 * A run in a folder that is not a git repository makes it one (`git init`, an initial commit,
 * `maker/*` branches, MAKER's state files). In an empty folder that is what anyone expects; in one
 * that holds a person's files (notes, `.env`, photos) it is not done quietly: `--init` says so,
 * or, at a terminal, the person confirms. Refused before anything is created.
 */
export async function agreeToInit(
  io: CliIo,
  dir: string,
  init: boolean,
  demo: boolean,
  signal?: AbortSignal,
): Promise<void> {
  if (init) return;
  // MAKER's own files (a lock or state left by a run killed before its `git init`) are not the person's.
  const entries = (await readdir(dir)).filter((name) => !MAKER_FILE.test(name)).sort();
  if (entries.length === 0) return;
  const shown = `${entries
    .slice(0, 4)
    .map((e) => JSON.stringify(e))
    .join(', ')}${entries.length > 4 ? `, and ${entries.length - 4} more` : ''}`;
  const what = `${dir} is not a git repository and holds files (${shown}). A run makes it one: git init, an initial commit, maker/* branches and MAKER's state files beside your files.`;
  if (!demo && io.stdinIsTty && io.stderrIsTty) {
    const answer = await askLine(`maker: ${what}\nMake it a git repository? [y/N] `, signal);
    if (/^\s*y(es)?\s*$/i.test(answer)) return;
  }
  throw new UsageError(
    `${what} ${demo ? 'Give the demo an empty or new folder (--dir), or leave --dir out for a temporary one.' : 'Give --init to do that, or point --dir at an empty or new folder, or at a git repository.'} Nothing was created or changed.`,
  );
}

/** What a run says when it made its folder a repository: where, and whose the first commit is. */
export async function createdRepositoryLine(
  dir: string,
  was: 'missing' | 'directory',
): Promise<string> {
  const who = await configuredIdentity(dir);
  return `made ${was === 'missing' ? 'the new folder ' : ''}${dir} a git repository (branch main; its initial commit by ${who === undefined ? 'MAKER <maker@localhost>: no git identity is configured' : `${who.name} <${who.email}>`}).`;
}

/** Said when a run takes over the lock of a maker process that died holding it. */
export function staleLockNote(owner: LockOwner): string {
  const what = owner.command === undefined ? 'a maker process' : `maker ${owner.command}`;
  const since = owner.acquiredAt === undefined ? '' : `, since ${owner.acquiredAt}`;
  return `${what} (pid ${owner.pid}${since}) stopped without releasing this workspace; taking it over. What it left (a run to resume, or nothing) is shown by: maker status`;
}
