import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/** The bundled CLI (vitest's global setup builds it). */
export const CLI = join(process.cwd(), 'dist', 'maker.js');

export interface MakerResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `maker <args>` as its own process with a bare environment (PATH, HOME and `env` only, so no
 * key or GitHub setting of the machine leaks in), and collects its exit and output. Called in a
 * test, a process still running when the test ends (a timeout) is killed, and the end of what it
 * printed is shown: a hung run says where it stopped.
 */
export function maker(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<MakerResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    let running = true;
    child.on('exit', (code, signal) => {
      running = false;
      resolve({ code, signal, stdout, stderr });
    });
    try {
      onTestFinished(() => {
        if (!running) return;
        child.kill('SIGKILL');
        console.error(
          `maker ${args.join(' ')} was still running when its test ended; the end of its stderr:\n${stderr.slice(-4000)}`,
        );
      });
    } catch {
      // Outside a test (a beforeAll): its hooks' own timeouts apply.
    }
  });
}

/** `maker run "a tool" --dir <dir> --worker sim --hitl auto <flags>`: a sim run that asks no one. */
export function simRun(
  dir: string,
  flags: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<MakerResult> {
  return maker(['run', 'a tool', '--dir', dir, '--worker', 'sim', '--hitl', 'auto', ...flags], env);
}
