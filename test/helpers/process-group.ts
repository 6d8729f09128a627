import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  startFakeGitHub,
  type FakeGitHub,
  type FakeGitHubOptions,
} from '../../src/testing/fake-github.js';
import { CLI, type MakerResult } from './cli.js';
import { DEFAULT_FAKE_OPTIONS } from './github.js';

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

/**
 * A fake GitHub whose world is kept on disk under `root` (its bare repositories and `world.json`):
 * what a snapshot copies, and what a fake started over a copy serves again.
 */
export function storedFake(
  root: string,
  options: Partial<FakeGitHubOptions> = {},
): Promise<FakeGitHub> {
  return startFakeGitHub({
    ...DEFAULT_FAKE_OPTIONS,
    root,
    store: join(root, 'world.json'),
    ...options,
  });
}

/**
 * Copies what a kill leaves into `at` (made here): the run's directory `run` (when it exists yet)
 * as `at/<name>`, and the stored fake's `root` as `at/github`. Call it while the run's group is
 * stopped.
 */
export function copyKilled(at: string, run: string, name: string, root: string): void {
  mkdirSync(at);
  if (existsSync(run)) execFileSync('cp', ['-a', run, join(at, name)]);
  execFileSync('cp', ['-a', root, join(at, 'github')]);
}
