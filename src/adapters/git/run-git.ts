import { spawn } from 'node:child_process';
import { MakerError } from '../../core/errors.js';

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
}

/**
 * Runs `git -C dir …args` with `input` on stdin; resolves with stdout as bytes (binary safe).
 * An exit other than 0 (or one of `okCodes`) rejects with a `git` error carrying the first line of stderr.
 */
export function runGit(
  dir: string,
  args: readonly string[],
  options: GitOptions = {},
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    countGitProcess(args);
    const child = spawn('git', ['-C', dir, ...args], {
      env: gitEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0 || (code !== null && options.okCodes?.includes(code) === true))
        return resolve(Buffer.concat(out));
      const stderr = Buffer.concat(err).toString('utf8');
      const first = stderr.split('\n').find((l) => l.trim() !== '') ?? `exit status ${code}`;
      reject(
        new MakerError('git', `git ${args[0] ?? ''} failed: ${first.trim()}`, {
          cause: new Error(stderr),
        }),
      );
    });
    child.stdin.on('error', () => undefined); // git may exit before reading all of stdin
    child.stdin.end(options.input ?? '');
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
export function gitOk(dir: string, args: readonly string[]): Promise<boolean> {
  return runGit(dir, args).then(
    () => true,
    () => false,
  );
}
