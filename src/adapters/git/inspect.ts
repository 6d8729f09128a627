import { execFile } from 'node:child_process';
import { realpath, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { isDubiousOwnership, unsafeRepository } from './git-repo.js';
import { gitBinary } from './git-binary.js';

const execFileAsync = promisify(execFile);

/** What a directory is, as far as MAKER cares, read without changing anything. */
export type RepositoryFacts =
  | { readonly kind: 'missing' }
  | { readonly kind: 'file' }
  /** A directory that is not the top of a git work tree (MAKER would `git init` it). */
  | { readonly kind: 'directory' }
  | {
      readonly kind: 'repository';
      /** The checked-out branch; null when HEAD is detached. */
      readonly branch: string | null;
      /** The URL of `origin`, if there is one. */
      readonly origin: string | undefined;
      /** Tracked files with changes not committed (staged or not): a landing on `branch` would refuse them. */
      readonly uncommitted: readonly string[];
    };

/**
 * Looks at `dir` without touching it: whether it exists, is a directory, is the top of a git work
 * tree, and (if so) its branch, origin and uncommitted changes. Git runs with a minimal environment,
 * so an inherited `GIT_DIR` (a hook's) cannot point it elsewhere.
 */
export async function inspectRepository(dir: string): Promise<RepositoryFacts> {
  const info = await stat(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
    throw error;
  });
  if (info === undefined) return { kind: 'missing' };
  if (!info.isDirectory()) return { kind: 'file' };
  const git = (args: readonly string[]) =>
    execFileAsync(gitBinary(), ['-C', dir, ...args], { env: gitEnv() }).then(
      (r) => r.stdout,
      () => undefined,
    );
  const top = await execFileAsync(gitBinary(), ['-C', dir, 'rev-parse', '--show-toplevel'], {
    env: gitEnv(),
  }).then(
    (r) => r.stdout.trim(),
    (error: unknown) => {
      // Git refuses a repository another user owns: not a folder to make a repository of.
      if (isDubiousOwnership(error)) throw unsafeRepository(dir);
      return undefined;
    },
  );
  if (top === undefined || top === '') return { kind: 'directory' };
  const [realTop, realDir] = await Promise.all([realpath(top), realpath(dir)]);
  if (realTop !== realDir) return { kind: 'directory' };
  const [branch, origin, status] = await Promise.all([
    git(['symbolic-ref', '-q', '--short', 'HEAD']),
    git(['remote', 'get-url', 'origin']),
    git(['status', '--porcelain=v1', '-z', '--untracked-files=no']),
  ]);
  return {
    kind: 'repository',
    branch: branch === undefined ? null : branch.trim(),
    origin: origin?.trim() || undefined,
    uncommitted: porcelainPaths(status ?? ''),
  };
}

/** The paths of `git status --porcelain=v1 -z` (a rename's or copy's source, which follows it, skipped). */
function porcelainPaths(status: string): string[] {
  const entries = status.split('\0');
  const paths: string[] = [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as string;
    if (entry.length < 4) continue;
    paths.push(entry.slice(3));
    if (/^[RC]/.test(entry)) i += 1;
  }
  return paths;
}

function gitEnv(): Record<string, string> {
  const env: Record<string, string> = { LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0' };
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'SYSTEMROOT']) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return env;
}
