import { spawn } from 'node:child_process';
import { join } from 'node:path';

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
 * key or GitHub setting of the machine leaks in), and collects its exit and output.
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
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr }));
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
