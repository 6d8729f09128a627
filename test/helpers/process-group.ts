import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  startFakeGitHub,
  type FakeGitHub,
  type FakeGitHubOptions,
} from '../../src/offline/fake-github.js';
import { spawnMaker, type MakerResult } from './cli.js';
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
  const run = spawnMaker(args, { env, detached: true });
  let partial = '';
  run.child.stderr.on('data', (c: string) => {
    const lines = (partial + c).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) onStderr(line);
  });
  const { pid } = run;
  return {
    pid,
    ended: run.ended,
    running: run.running,
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
