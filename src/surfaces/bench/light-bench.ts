import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MakerError } from '../../core/errors.js';

/** The commands measured: what a person runs first, and what must stay light. */
export const LIGHT_COMMANDS: readonly (readonly string[])[] = [
  ['--help'],
  ['--version'],
  ['run', '--help'],
  ['estimate', '--p', '0.99', '--steps', '100', '--target', '0.9'],
  ['bench', 'hanoi', '--disks', '10', '--json'],
];

/**
 * The CPU time (ms, user + system) of this process's children that have exited and been waited
 * for, from /proc/self/stat (Linux): the whole of each child, its start-up and exit included. Kept
 * in clock ticks (1/100 s), so the bench reports the mean over many runs, not each run.
 */
async function childrenCpuMs(): Promise<number> {
  const stat = await readFile('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 16 and 17 of proc(5), cutime and cstime, counted from the state (field 3).
  return (Number(fields[13]) + Number(fields[14])) * TICK_MS;
}
const TICK_MS = 10;

/**
 * Runs `node <args>` to its exit; the CPU time it took (ms, user + system). Synchronously: the
 * child is waited for before this returns, so its time is in the counters read after.
 */
async function cpuMs(args: readonly string[], cwd: string): Promise<number> {
  const before = await childrenCpuMs();
  const child = spawnSync(process.execPath, args, {
    cwd,
    env: { PATH: process.env['PATH'] ?? '', HOME: cwd },
    stdio: 'ignore',
  });
  if (child.error !== undefined) throw child.error;
  if (child.status !== 0)
    throw new MakerError(
      'bench-failed',
      `node ${args.join(' ')} exited ${child.status}: run it alone to see why.`,
    );
  return (await childrenCpuMs()) - before;
}

function mean(values: readonly number[]): number {
  return Math.round((values.reduce((a, b) => a + b, 0) / Math.max(1, values.length)) * 10) / 10;
}

/**
 * `maker bench light`: the CPU time of the light commands against `node -e 0`, in one loop that
 * takes turns (`node -e 0`, then each command, `runs` times), so a busy machine weighs on both
 * alike: the mean CPU time of each (Linux only: read from /proc).
 */
export async function runLightBench(options: { cliPath: string; runs: number }) {
  const dir = await mkdtemp(join(tmpdir(), 'maker-bench-light-'));
  try {
    const node: number[] = [];
    const byCommand = LIGHT_COMMANDS.map(() => [] as number[]);
    for (let i = 0; i < options.runs; i++) {
      node.push(await cpuMs(['-e', '0'], dir));
      for (const [j, args] of LIGHT_COMMANDS.entries())
        byCommand[j]?.push(await cpuMs([options.cliPath, ...args], dir));
    }
    const nodeMs = mean(node);
    return {
      runs: options.runs,
      nodeCpuMs: nodeMs,
      commands: LIGHT_COMMANDS.map((args, j) => {
        const cpu = mean(byCommand[j] ?? []);
        return {
          command: `maker ${args.join(' ')}`,
          cpuMs: cpu,
          ratio: Math.round((cpu / nodeMs) * 100) / 100,
        };
      }),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
