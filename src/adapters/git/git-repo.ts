import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { MakerError } from '../../core/errors.js';
import { gitOk, gitText, type GitOptions } from './run-git.js';

/** The identity MAKER's commits carry. */
export const IDENTITY = { name: 'MAKER', email: 'maker@localhost' };

/**
 * Makes `dir` a repository if it is not one (with `create`; branch `main`), and gives an empty
 * repository one empty root commit, so a run always has a base commit. Safe to repeat.
 */
export async function prepareRepository(dir: string, create: boolean): Promise<void> {
  if (create) await mkdir(dir, { recursive: true });
  // The top of a repository: git's own directory is `.git` (or `.`, a bare one) from there.
  const gitDir = (
    await gitText(dir, ['rev-parse', '--git-dir']).catch((error: unknown) => {
      if (isDubiousOwnership(error)) throw unsafeRepository(dir);
      return '';
    })
  ).trim();
  if (!/^\.(git)?$/.test(gitDir)) {
    if (!create) throw new MakerError('git-not-a-repo', `${dir} is not a git repository.`);
    await gitText(dir, ['init', '--quiet', '--initial-branch=main']);
  }
  if (await gitOk(dir, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'])) return;
  const branch = (await gitText(dir, ['symbolic-ref', 'HEAD'])).trim();
  // Written (-w), so the repository's first commit points at a tree it holds (git fsck passes).
  const tree = (await gitText(dir, ['hash-object', '-w', '-t', 'tree', '/dev/null'])).trim();
  // The repository's first commit is the person's (their configured identity) when they have one.
  const commit = await commitTree(dir, {
    tree,
    parents: [],
    message: 'Initial commit',
    date: new Date(),
    identity: await configuredIdentity(dir),
  });
  await gitText(dir, ['update-ref', branch, commit]);
}

/** Whether git refused a repository another user owns (its `safe.directory` check). */
export function isDubiousOwnership(error: unknown): boolean {
  const stderr = (error as { stderr?: unknown } | undefined)?.stderr;
  const said = `${error instanceof Error ? error.message : ''} ${typeof stderr === 'string' ? stderr : ''} ${error instanceof Error && error.cause instanceof Error ? error.cause.message : ''}`;
  return /dubious ownership/.test(said);
}

/** The error for a repository git refuses as owned by another user: what it is, and the way forward. */
export function unsafeRepository(dir: string): MakerError {
  return new MakerError(
    'git-unsafe-repository',
    `${dir} is a git repository owned by another user, which git refuses to work in ("detected dubious ownership"). If you trust it, allow it with: git config --global --add safe.directory ${dir} (or run maker as the user who owns it).`,
  );
}

/**
 * The person's git identity as configured for `dir` (repository, global or system), if complete:
 * one git process for both keys. Where a key is set more than once, the last value wins, as
 * `git config --get` gives it.
 */
export async function configuredIdentity(
  dir: string,
): Promise<{ name: string; email: string } | undefined> {
  // Exit 1 when neither is set: no identity.
  const out = await gitText(dir, ['config', '-z', '--get-regexp', '^user\\.(name|email)$']).catch(
    () => '',
  );
  const values = new Map<string, string>();
  for (const entry of out.split('\0')) {
    const cut = entry.indexOf('\n');
    if (cut > 0) values.set(entry.slice(0, cut), entry.slice(cut + 1).trim());
  }
  const name = values.get('user.name') ?? '';
  const email = values.get('user.email') ?? '';
  return name !== '' && email !== '' ? { name, email } : undefined;
}

/**
 * Who the first commit of `dir`'s current branch is by (its author), as the commit says: what a run
 * that made the repository tells the person, rather than the configuration read again.
 */
export async function rootCommitAuthor(dir: string): Promise<{ name: string; email: string }> {
  const [name = '', email = ''] = (
    await gitText(dir, ['log', '--max-parents=0', '-1', '--format=%an%x00%ae', 'HEAD'])
  )
    .trim()
    .split('\0');
  return { name, email };
}

/** `git commit-tree` with MAKER's identity (or the one given) and the request's date for author and committer. */
export async function commitTree(
  dir: string,
  request: {
    tree: string;
    parents: readonly string[];
    message: string;
    date: Date;
    identity?: { name: string; email: string } | undefined;
  },
  options: GitOptions = {},
): Promise<string> {
  const who = request.identity ?? IDENTITY;
  const date = `${Math.floor(request.date.getTime() / 1000)} +0000`;
  const args = [
    'commit-tree',
    request.tree,
    ...request.parents.flatMap((p) => ['-p', p]),
    '-m',
    request.message,
  ];
  const out = await gitText(dir, args, {
    ...options,
    env: {
      GIT_AUTHOR_NAME: who.name,
      GIT_AUTHOR_EMAIL: who.email,
      GIT_COMMITTER_NAME: who.name,
      GIT_COMMITTER_EMAIL: who.email,
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
    },
  });
  return out.trim();
}

/**
 * The repository's (common) git directory and this work tree's own, both absolute, from one git
 * process (a linked work tree's own is under the common one; elsewhere they are the same). Where a
 * path holds a line break, one line per value cannot say which is which: each is asked alone.
 */
export async function gitDirsOf(dir: string): Promise<{ common: string; own: string }> {
  const ask = async (...flags: string[]) =>
    (await gitText(dir, ['rev-parse', ...flags])).replace(/\n$/, '');
  const both = await ask('--git-common-dir', '--absolute-git-dir');
  const lines = both.split('\n');
  const [common = '', own = ''] =
    lines.length === 2
      ? lines
      : await Promise.all([ask('--git-common-dir'), ask('--absolute-git-dir')]);
  if (common === '' || own === '')
    throw new MakerError('git', `git rev-parse gave no git directory for ${dir}: ${both}`);
  return { common: isAbsolute(common) ? common : join(dir, common), own };
}

/** Adds patterns to `info/exclude` under `gitDir` (the repository's private ignore list) unless present. */
export async function excludeLocally(gitDir: string, patterns: readonly string[]): Promise<void> {
  const file = join(gitDir, 'info', 'exclude');
  const current = await readFile(file, 'utf8').catch(() => '');
  const missing = patterns.filter((p) => !current.split('\n').includes(p));
  if (missing.length === 0) return;
  await mkdir(dirname(file), { recursive: true });
  await appendFile(
    file,
    `${current === '' || current.endsWith('\n') ? '' : '\n'}${missing.join('\n')}\n`,
  );
}
