import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';

/** How a check ended: it passed, it failed, or it was still running at its deadline. */
export type Ended = 'passed' | 'failed' | 'hung';

/**
 * A check's deadline in the tests of the fake product ideas: a backstop, far above what any check
 * takes on a busy machine (seconds). A check must end by itself: one that waits forever on a
 * flawed product (a server that never answers) is a bug of the idea, which would cost the bench's
 * sandboxed check its whole time limit; here it ends as `hung`, not as a failure.
 */
const CHECK_DEADLINE_MS = 60_000;

/** A check's environment but its home (the product's directory): the PATH, a temporary directory and the locale. */
export function checkEnv(): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    TMPDIR: tmpdir(),
  };
  for (const name of ['LANG', 'LC_ALL', 'TERM']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * Runs a check (a shell command) in `dir` as the check sandbox does, its stdin empty and its
 * environment only the PATH, a home, a temporary directory and the locale: how it ended, and the
 * tail of its output. At the deadline its processes (its own group) are killed.
 */
export function runCheck(dir: string, command: string): Promise<{ ended: Ended; tail: string }> {
  const env = { ...checkEnv(), HOME: dir };
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], { cwd: dir, detached: true, env });
    child.stdin.end();
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-2000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        // Ended meanwhile.
      }
    }, CHECK_DEADLINE_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ ended: hung ? 'hung' : code === 0 ? 'passed' : 'failed', tail: output });
    });
  });
}
