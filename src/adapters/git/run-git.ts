import { MakerError } from '../../core/errors.js';
import { gitBinary } from './git-binary.js';
import { direct, type GitLauncher } from './git-launcher.js';

/** A minimal, predictable environment for git: no inherited GIT_* (a hook's GIT_DIR would redirect it), no pager, no prompts. */
export function gitEnv(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = { LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0' };
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'SYSTEMROOT']) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...extra };
}

/** Git processes started by this module and {@link GitBatch}, by subcommand: the benchmarks' counting seam. */
const started = new Map<string, number>();

/** Counts one git process about to start with `args` (its subcommand is the first). */
export function countGitProcess(args: readonly string[]): void {
  const command = args[0] ?? '';
  started.set(command, (started.get(command) ?? 0) + 1);
}

/** The git processes started so far in this Node process, in all and by subcommand. */
export function gitProcessCounts(): { total: number; byCommand: Record<string, number> } {
  const byCommand = Object.fromEntries([...started].sort(([a], [b]) => a.localeCompare(b)));
  return { total: [...started.values()].reduce((a, b) => a + b, 0), byCommand };
}

export interface GitOptions {
  readonly input?: string | Uint8Array;
  readonly env?: Readonly<Record<string, string>>;
  /** Exit codes besides 0 that answer rather than fail (`merge-tree`'s 1 for a conflict). */
  readonly okCodes?: readonly number[];
  /** Starts the process through this launcher rather than from Node directly. */
  readonly launcher?: GitLauncher;
}

/**
 * Runs `git -C dir …args` with `input` on stdin; resolves with stdout as bytes (binary safe).
 * An exit other than 0 (or one of `okCodes`) rejects with a `git` error carrying the first line of stderr.
 */
export async function runGit(
  dir: string,
  args: readonly string[],
  options: GitOptions = {},
): Promise<Buffer> {
  countGitProcess(args);
  const argv = ['-C', dir, ...args];
  const input = options.input ?? '';
  const result =
    options.launcher === undefined
      ? await direct(gitBinary(), argv, gitEnv(options.env), input)
      : await options.launcher.run(gitBinary(), argv, options.env ?? {}, input);
  const { code } = result;
  if (code === 0 || (code !== null && options.okCodes?.includes(code) === true))
    return result.stdout;
  const first =
    result.stderr.split('\n').find((l) => l.trim() !== '') ??
    result.error ??
    `exit status ${code ?? 'none'}`;
  // No exit status: git did not run to its end (it could not start, or its launcher died twice).
  // A transport failure, worth retrying, never the candidate's fault.
  if (code === null)
    throw new MakerError('git-transport', `git ${args[0] ?? ''} did not run: ${first.trim()}`, {
      cause: new Error(result.stderr || result.error),
      isRetryable: true,
    });
  throw new MakerError('git', `git ${args[0] ?? ''} failed: ${first.trim()}`, {
    cause: new Error(result.stderr || result.error),
  });
}

/** {@link runGit}'s stdout as text. */
export async function gitText(
  dir: string,
  args: readonly string[],
  options: GitOptions = {},
): Promise<string> {
  return (await runGit(dir, args, options)).toString('utf8');
}

/** Whether `git -C dir …args` exits 0: the answer of commands that answer by status alone. */
export function gitOk(
  dir: string,
  args: readonly string[],
  options: GitOptions = {},
): Promise<boolean> {
  return runGit(dir, args, options).then(
    () => true,
    () => false,
  );
}
