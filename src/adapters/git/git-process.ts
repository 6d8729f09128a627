import { execFile } from 'node:child_process';

export interface GitProcessResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs one git process; resolves with its exit code and output (a failing git is not an exception). */
export type GitRunner = (
  args: readonly string[],
  options: { readonly cwd: string; readonly env?: Readonly<Record<string, string>> },
) => Promise<GitProcessResult>;

export const runGit: GitRunner = (args, options) =>
  new Promise((resolve, reject) => {
    execFile(
      'git',
      [...args],
      { cwd: options.cwd, env: { ...process.env, ...options.env }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== 'number') reject(new Error(error.message));
        else resolve({ code: error === null ? 0 : (error.code as number), stdout, stderr });
      },
    );
  });
