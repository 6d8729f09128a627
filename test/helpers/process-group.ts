import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { CLI, type MakerResult } from './cli.js';

/** A `maker` process leading its own process group (so the whole group can be stopped at once). */
export interface MakerGroup {
  /** The leader's pid, also the group's id (signal `-pid` for the whole group). */
  readonly pid: number;
  readonly ended: Promise<MakerResult>;
  running(): boolean;
  /** Whether the leader is stopped (SIGSTOP), from /proc. */
  stopped(): boolean;
}

/**
 * `maker <args>` as the leader of its own process group, with a bare environment as `maker()`
 * gives; `onStderr` is told each line it writes to stderr.
 */
export function makerGroup(
  args: readonly string[],
  env: Record<string, string>,
  onStderr: (line: string) => void = () => undefined,
): MakerGroup {
  const child = spawn(process.execPath, [CLI, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => {
    const lines = (stderr.slice(stderr.lastIndexOf('\n') + 1) + c.toString()).split('\n');
    stderr += c.toString();
    for (const line of lines.slice(0, -1)) onStderr(line);
  });
  const ended = new Promise<MakerResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  const pid = child.pid as number;
  return {
    pid,
    ended,
    running: () => child.exitCode === null && child.signalCode === null,
    stopped: () => {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T');
    },
  };
}
