import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { OfflineError } from './errors.js';

/** What the fake GitHub does to its bare repositories: plumbing only, never a working tree. */

const IDENTITY = {
  GIT_AUTHOR_NAME: 'GitHub',
  GIT_AUTHOR_EMAIL: 'noreply@github.com',
  GIT_COMMITTER_NAME: 'GitHub',
  GIT_COMMITTER_EMAIL: 'noreply@github.com',
};

export interface GitRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs git in `gitDir` (asynchronously: the fake never blocks its event loop on git). */
export function git(
  gitDir: string,
  args: readonly string[],
  options: { input?: string; env?: Readonly<Record<string, string>> } = {},
): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      ['--git-dir', gitDir, ...args],
      { env: { ...process.env, ...IDENTITY, ...options.env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        if (code === -1)
          reject(
            new OfflineError(
              `git ${args.join(' ')} failed to start: ${error?.message ?? 'no error given'}`,
              { cause: error },
            ),
          );
        else resolve({ code, stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** {@link git} that must succeed; its stdout, trimmed. */
export async function gitOk(
  gitDir: string,
  args: readonly string[],
  options: { input?: string; env?: Readonly<Record<string, string>> } = {},
): Promise<string> {
  const run = await git(gitDir, args, options);
  if (run.code !== 0)
    throw new OfflineError(`git ${args.join(' ')} failed (${run.code}): ${run.stderr.trim()}`);
  return run.stdout.trim();
}

export async function initBare(gitDir: string, defaultBranch: string): Promise<void> {
  await gitOk(gitDir, ['init', '--quiet', '--bare', `--initial-branch=${defaultBranch}`, gitDir]);
}

/** The commit a branch (or any commit-ish) names, or undefined. */
export async function resolveCommit(gitDir: string, rev: string): Promise<string | undefined> {
  if (rev === '' || rev.startsWith('-')) return undefined;
  const run = await git(gitDir, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]);
  return run.code === 0 ? run.stdout.trim() : undefined;
}

export function branchTip(gitDir: string, branch: string): Promise<string | undefined> {
  return resolveCommit(gitDir, `refs/heads/${branch}`);
}

export async function objectExists(gitDir: string, sha: string): Promise<boolean> {
  return /^[0-9a-f]{40}$/.test(sha) && (await git(gitDir, ['cat-file', '-e', sha])).code === 0;
}

/** Every ref under `prefix` (e.g. `refs/heads/`), sorted by name, with the object it points at. */
export async function listRefs(
  gitDir: string,
  prefix = 'refs/',
): Promise<{ ref: string; sha: string }[]> {
  const out = await gitOk(gitDir, ['for-each-ref', '--format=%(refname) %(objectname)', prefix]);
  return out === ''
    ? []
    : out.split('\n').map((line) => {
        const [ref, sha] = line.split(' ');
        return { ref: ref as string, sha: sha as string };
      });
}

/** Compare-and-swap on a ref: `expected` null means it must not exist. False when it moved meanwhile. */
export async function updateRef(
  gitDir: string,
  ref: string,
  sha: string,
  expected: string | null,
): Promise<boolean> {
  return (await git(gitDir, ['update-ref', ref, sha, expected ?? '0'.repeat(40)])).code === 0;
}

export async function deleteRef(gitDir: string, ref: string, expected: string): Promise<boolean> {
  return (await git(gitDir, ['update-ref', '-d', ref, expected])).code === 0;
}

export async function isAncestor(gitDir: string, ancestor: string, of: string): Promise<boolean> {
  return (await git(gitDir, ['merge-base', '--is-ancestor', ancestor, of])).code === 0;
}

export async function mergeBase(gitDir: string, a: string, b: string): Promise<string | undefined> {
  const run = await git(gitDir, ['merge-base', a, b]);
  return run.code === 0 ? run.stdout.trim() : undefined;
}

/** A server-side three-way merge: the merged tree, or the conflicting paths. */
export async function mergeTree(
  gitDir: string,
  ours: string,
  theirs: string,
): Promise<{ ok: true; tree: string } | { ok: false; conflicts: string[] }> {
  const run = await git(gitDir, [
    'merge-tree',
    '--write-tree',
    '--name-only',
    '--no-messages',
    '--allow-unrelated-histories',
    ours,
    theirs,
  ]);
  const lines = run.stdout.trim().split('\n');
  if (run.code === 0) return { ok: true, tree: lines[0] as string };
  if (run.code === 1) return { ok: false, conflicts: lines.slice(1).filter((l) => l !== '') };
  throw new OfflineError(`git merge-tree failed (${run.code}): ${run.stderr.trim()}`);
}

export function commitTree(
  gitDir: string,
  tree: string,
  parents: readonly string[],
  message: string,
): Promise<string> {
  return gitOk(gitDir, ['commit-tree', tree, ...parents.flatMap((p) => ['-p', p])], {
    input: message,
  });
}

/** A commit on top of `parent` (or a root commit) that writes one file: someone else's work. */
export async function commitFile(
  gitDir: string,
  parent: string | undefined,
  path: string,
  content: string,
  message: string,
): Promise<string> {
  const blob = await gitOk(gitDir, ['hash-object', '-w', '--stdin'], { input: content });
  const env = { GIT_INDEX_FILE: `${gitDir}/fake-github-index-${process.pid}-${++indexCount}` };
  try {
    if (parent === undefined) await gitOk(gitDir, ['read-tree', '--empty'], { env });
    else await gitOk(gitDir, ['read-tree', parent], { env });
    await gitOk(gitDir, ['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`], {
      env,
    });
    const tree = await gitOk(gitDir, ['write-tree'], { env });
    return await commitTree(gitDir, tree, parent === undefined ? [] : [parent], message);
  } finally {
    await rm(env.GIT_INDEX_FILE, { force: true });
  }
}

let indexCount = 0;

export interface CommitInfo {
  readonly sha: string;
  readonly tree: string;
  readonly parents: readonly string[];
  readonly author: { name: string; email: string; date: string };
  readonly committer: { name: string; email: string; date: string };
  readonly message: string;
}

/** Commits in `range` (git rev-list syntax), newest first; `max` bounds the count. */
export async function readCommits(
  gitDir: string,
  range: readonly string[],
  max?: number,
): Promise<CommitInfo[]> {
  const out = await gitOk(gitDir, [
    'log',
    '--format=%H%x00%T%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B%x1e',
    ...(max === undefined ? [] : [`--max-count=${max}`]),
    ...range,
    '--',
  ]);
  return out
    .split('\x1e')
    .map((record) => record.replace(/^\n/, ''))
    .filter((record) => record !== '')
    .map((record) => {
      const [sha, tree, parents, an, ae, ad, cn, ce, cd, message] = record.split('\x00');
      return {
        sha: sha as string,
        tree: tree as string,
        parents: (parents as string) === '' ? [] : (parents as string).split(' '),
        author: { name: an as string, email: ae as string, date: toUtc(ad as string) },
        committer: { name: cn as string, email: ce as string, date: toUtc(cd as string) },
        message: (message as string).trimEnd(),
      };
    });
}

export async function countCommits(gitDir: string, range: readonly string[]): Promise<number> {
  return Number(await gitOk(gitDir, ['rev-list', '--count', ...range, '--']));
}

/** Files changed from `from` to `to`: path, git status letter, added and deleted line counts. */
export async function changedFiles(
  gitDir: string,
  from: string,
  to: string,
): Promise<{ path: string; status: string; additions: number; deletions: number; sha: string }[]> {
  const raw = await gitOk(gitDir, ['diff', '--raw', '--numstat', '--no-renames', '-z', from, to]);
  const fields = raw.split('\0');
  const statuses: { path: string; status: string; sha: string }[] = [];
  const counts = new Map<string, { additions: number; deletions: number }>();
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as string;
    if (field.startsWith(':')) {
      const parts = field.split(' ');
      statuses.push({
        path: fields[++i] as string,
        status: (parts[4] ?? 'M').charAt(0),
        sha: parts[3] as string,
      });
    } else if (field !== '') {
      const [added, deleted, path] = field.split('\t');
      const key = path === '' ? (fields[++i] as string) : (path as string);
      counts.set(key, {
        additions: Number(added) || 0,
        deletions: Number(deleted) || 0,
      });
    }
  }
  return statuses.map((s) => ({ ...s, ...(counts.get(s.path) ?? { additions: 0, deletions: 0 }) }));
}

function toUtc(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
