import { execFile } from 'node:child_process';
import { gitBinary } from './git-binary.js';

export interface GitProcessResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs one git process; resolves with its exit code and output (a failing git is not an
 * exception). A process that could not start or ran past `timeoutMs` (killed) answers code -1.
 */
export type GitRunner = (
  args: readonly string[],
  options: {
    readonly cwd: string;
    readonly env?: Readonly<Record<string, string>>;
    readonly timeoutMs?: number;
  },
) => Promise<GitProcessResult>;

export const runGit: GitRunner = (args, options) =>
  new Promise((resolve) => {
    execFile(
      gitBinary(),
      [...args],
      {
        cwd: options.cwd,
        env: { ...process.env, ...options.env },
        maxBuffer: 16 * 1024 * 1024,
        ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
      },
      (error, stdout, stderr) => {
        if (error === null) resolve({ code: 0, stdout, stderr });
        else if (typeof error.code === 'number' && error.killed !== true)
          resolve({ code: error.code, stdout, stderr });
        else
          resolve({
            code: -1,
            stdout,
            stderr: `${stderr}\n${error.killed === true ? `git ${args[0] ?? ''} timed out` : error.message}`,
          });
      },
    );
  });
