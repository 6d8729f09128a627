import { readdir } from 'node:fs/promises';
import { UsageError } from '../../../core/errors.js';
import { initialCommitAuthor, type LockOwner } from '../../../app/workspace-hold.js';
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
  const entries = await ownEntries(dir);
  if (entries.length === 0) return;
  const shown = `${entries
    .slice(0, 4)
    .map((e) => JSON.stringify(e))
    .join(', ')}${entries.length > 4 ? `, and ${entries.length - 4} more` : ''}`;
  const what = `${dir} is not a git repository and holds files (${shown}). A run makes it one: git init, an initial commit, maker/* branches and MAKER's state files beside your files, which stay untracked (MAKER commits only its own work).`;
  if (!demo && io.stdinIsTty && io.stderrIsTty) {
    const answer = await askLine(`maker: ${what}\nMake it a git repository? [y/N] `, signal);
    if (/^\s*y(es)?\s*$/i.test(answer)) return;
  }
  throw new UsageError(
    `${what} ${demo ? 'Give the demo an empty or new folder (--dir), or leave --dir out for a temporary one.' : 'Give --init to do that, or point --dir at an empty or new folder, or at a git repository.'} Nothing was created or changed.`,
  );
}

/** The person's own entries in a folder: not MAKER's files (a lock or state left by a run killed before its `git init`), nor `.git`. */
async function ownEntries(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => !MAKER_FILE.test(name) && name !== '.git').sort();
}

/**
 * What a run says when it made its folder a repository: where, whose the first commit is, and
 * that the files already there stay untracked.
 */
export async function createdRepositoryLine(
  dir: string,
  was: 'missing' | 'directory',
): Promise<string> {
  const who = await initialCommitAuthor(dir);
  const own = was === 'directory' ? (await ownEntries(dir)).length : 0;
  const untracked =
    own === 0
      ? ''
      : ` The ${own} file${own === 1 ? '' : 's'} and folder${own === 1 ? '' : 's'} already there stay untracked: MAKER commits only its own work (\`git add\` yours to keep them in its history).`;
  return `made ${was === 'missing' ? 'the new folder ' : ''}${dir} a git repository (branch main; its initial commit by ${who.name} <${who.email}>${who.own ? ': no git identity is configured' : ''}).${untracked}`;
}

/** Said when a run takes over the lock of a maker process that died holding it. */
export function staleLockNote(owner: LockOwner): string {
  const what = owner.command === undefined ? 'a maker process' : `maker ${owner.command}`;
  const since = owner.acquiredAt === undefined ? '' : `, since ${owner.acquiredAt}`;
  return `${what} (pid ${owner.pid}${since}) stopped without releasing this workspace; taking it over. What it left (a run to resume, or nothing) is shown by: maker status`;
}
