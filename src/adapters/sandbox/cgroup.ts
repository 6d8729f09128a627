import { mkdir, readFile, readdir, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { abortableSleep } from '../../core/sleep.js';
import { processIdentity } from '../os/process-identity.js';

/**
 * Control groups for sandboxes: one per sandboxed command, with a process and a memory limit that
 * hold whoever runs MAKER (root included, where `RLIMIT_NPROC` does not), made under a base of
 * MAKER's own in the unified hierarchy (cgroup v2) or in the `pids` and `memory` hierarchies
 * (cgroup v1), wherever this process may write.
 */

/** Where this process's control groups are, read from `/proc/self/mountinfo` and `/proc/self/cgroup`. */
export interface CgroupLayout {
  /** The unified hierarchy's mount and this process's group in it. */
  readonly v2?: { readonly mount: string; readonly own: string } | undefined;
  /** The v1 `pids` and `memory` hierarchies' directories holding this process. */
  readonly v1?: { readonly pids: string; readonly memory: string } | undefined;
}

/** Reads the layout from the text of `/proc/self/mountinfo` and `/proc/self/cgroup`. */
export function parseCgroupLayout(mountinfo: string, cgroups: string): CgroupLayout {
  const mounts: { root: string; point: string; type: string; options: string[] }[] = [];
  for (const line of mountinfo.split('\n')) {
    const [left, right] = line.split(' - ');
    if (left === undefined || right === undefined) continue;
    const fields = left.split(' ');
    const [type, , superOptions] = right.split(' ');
    const root = fields[3];
    const point = fields[4];
    if (type === undefined || root === undefined || point === undefined) continue;
    mounts.push({
      root: unescape(root),
      point: unescape(point),
      type,
      options: (superOptions ?? '').split(','),
    });
  }
  const own = new Map<string, string>();
  for (const line of cgroups.split('\n')) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line.trim());
    if (match === null) continue;
    for (const controller of (match[1] as string).split(','))
      own.set(controller, match[2] as string);
  }
  const place = (mount: { root: string; point: string }, path: string) =>
    join(mount.point, path.startsWith(mount.root) ? path.slice(mount.root.length) : path);
  const unified = mounts.find((m) => m.type === 'cgroup2');
  const pidsMount = mounts.find((m) => m.type === 'cgroup' && m.options.includes('pids'));
  const memoryMount = mounts.find((m) => m.type === 'cgroup' && m.options.includes('memory'));
  const ownPids = own.get('pids');
  const ownMemory = own.get('memory');
  return {
    v2:
      unified !== undefined && own.has('')
        ? { mount: unified.point, own: own.get('') as string }
        : undefined,
    v1:
      pidsMount !== undefined &&
      memoryMount !== undefined &&
      ownPids !== undefined &&
      ownMemory !== undefined
        ? { pids: place(pidsMount, ownPids), memory: place(memoryMount, ownMemory) }
        : undefined,
  };
}

function unescape(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) =>
    String.fromCharCode(parseInt(octal, 8)),
  );
}

/** One sandbox's groups: where to put its first process, and how to read and end them. */
export interface Cgroup {
  readonly kind: 'cgroup v2' | 'cgroup v1';
  /** The `cgroup.procs` files the first process writes its pid to before it starts the sandbox. */
  readonly procs: readonly string[];
  /** Whether the process limit refused a fork, and whether the memory limit killed a process. */
  reached(): Promise<{ processes: boolean; memory: boolean }>;
  /** Kills every process in the groups, waits until they are gone, and removes the groups. */
  remove(): Promise<void>;
}

/** Makes a sandbox's groups under a base; throws when this process may not. */
export interface CgroupMaker {
  readonly kind: 'cgroup v2' | 'cgroup v1';
  /** The base directories the groups are made in. */
  readonly bases: readonly string[];
  make(name: string, processes: number, memoryBytes: number): Promise<Cgroup>;
}

const read = (path: string) => readFile(path, 'utf8').catch(() => '');

/** The number after `key` in a flat-keyed file (`max 3`, `oom_kill 1`). */
function counter(text: string, key: string): number {
  const match = new RegExp(`^${key} (\\d+)$`, 'm').exec(text);
  return match === null ? 0 : Number(match[1]);
}

/** SIGKILLs every process listed in `procsFiles` until none is left (a fork bomb keeps forking). */
async function killAll(procsFiles: readonly string[], killFile?: string): Promise<void> {
  if (killFile !== undefined) await writeFile(killFile, '1').catch(() => undefined);
  for (let attempt = 0; attempt < 200; attempt++) {
    const pids = (await Promise.all(procsFiles.map(read)))
      .join('\n')
      .split('\n')
      .map(Number)
      .filter((p) => p > 0);
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    await abortableSleep(10);
  }
}

async function removeDir(dir: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      await rmdir(dir);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      if (code !== 'EBUSY') throw error;
      await abortableSleep(20);
    }
  }
}

/** A base under the unified hierarchy with the `pids` and `memory` controllers for its children. */
export async function v2Maker(base: string): Promise<CgroupMaker> {
  // The controllers must be on for the base's own children, so on in its parent first.
  await writeFile(join(base, '..', 'cgroup.subtree_control'), '+pids +memory').catch(
    () => undefined,
  );
  await mkdir(base, { recursive: true });
  await writeFile(join(base, 'cgroup.subtree_control'), '+pids +memory');
  return {
    kind: 'cgroup v2',
    bases: [base],
    make: async (name, processes, memoryBytes) => {
      const dir = join(base, name);
      await mkdir(dir);
      try {
        await writeFile(join(dir, 'pids.max'), String(processes));
        await writeFile(join(dir, 'memory.max'), String(memoryBytes));
        await writeFile(join(dir, 'memory.swap.max'), '0').catch(() => undefined);
      } catch (error) {
        await removeDir(dir).catch(() => undefined);
        throw error;
      }
      return {
        kind: 'cgroup v2',
        procs: [join(dir, 'cgroup.procs')],
        reached: async () => ({
          processes: counter(await read(join(dir, 'pids.events')), 'max') > 0,
          memory: counter(await read(join(dir, 'memory.events')), 'oom_kill') > 0,
        }),
        remove: async () => {
          await killAll([join(dir, 'cgroup.procs')], join(dir, 'cgroup.kill'));
          await removeDir(dir);
        },
      };
    },
  };
}

/** Bases in the v1 `pids` and `memory` hierarchies. */
export async function v1Maker(pidsBase: string, memoryBase: string): Promise<CgroupMaker> {
  await mkdir(pidsBase, { recursive: true });
  await mkdir(memoryBase, { recursive: true });
  return {
    kind: 'cgroup v1',
    bases: [pidsBase, memoryBase],
    make: async (name, processes, memoryBytes) => {
      const pids = join(pidsBase, name);
      const memory = join(memoryBase, name);
      await mkdir(pids);
      try {
        await mkdir(memory);
        await writeFile(join(pids, 'pids.max'), String(processes));
        await writeFile(join(memory, 'memory.limit_in_bytes'), String(memoryBytes));
        await writeFile(join(memory, 'memory.memsw.limit_in_bytes'), String(memoryBytes)).catch(
          () => undefined,
        );
      } catch (error) {
        await removeDir(pids).catch(() => undefined);
        await removeDir(memory).catch(() => undefined);
        throw error;
      }
      const procs = [join(pids, 'cgroup.procs'), join(memory, 'cgroup.procs')];
      return {
        kind: 'cgroup v1',
        procs,
        reached: async () => ({
          processes: counter(await read(join(pids, 'pids.events')), 'max') > 0,
          memory: counter(await read(join(memory, 'memory.oom_control')), 'oom_kill') > 0,
        }),
        remove: async () => {
          await killAll(procs);
          await removeDir(pids);
          await removeDir(memory);
        },
      };
    },
  };
}

/**
 * The groups' makers to try on this machine, best first: in v2, a base at the hierarchy's root
 * (root may make one) or beside this process's own group (a delegated subtree); in v1, under this
 * process's `pids` and `memory` groups.
 */
export function cgroupBases(layout: CgroupLayout, pid: number): (() => Promise<CgroupMaker>)[] {
  const makers: (() => Promise<CgroupMaker>)[] = [];
  if (layout.v2 !== undefined) {
    const { mount, own } = layout.v2;
    makers.push(() => v2Maker(join(mount, 'maker.sandboxes')));
    if (own !== '/') makers.push(() => v2Maker(join(mount, own, '..', `maker-${pid}.sandboxes`)));
  }
  if (layout.v1 !== undefined) {
    const { pids, memory } = layout.v1;
    makers.push(() => v1Maker(join(pids, 'maker.sandboxes'), join(memory, 'maker.sandboxes')));
  }
  return makers;
}

/**
 * Removes groups left by MAKER processes that are gone (a SIGKILL leaves them empty), named
 * `<pid>-<start>-<n>`, from `dirs` (a maker's bases).
 */
export async function sweepGroups(dirs: readonly string[]): Promise<void> {
  for (const base of dirs) {
    for (const name of await readdir(base).catch(() => [])) {
      const match = /^(\d+)-([^-]+)-\d+$/.exec(name);
      if (match === null) continue;
      const owner = processIdentity(Number(match[1]));
      if (owner !== undefined && (match[2] === '0' || owner.startTime === match[2])) continue;
      const dir = join(base, name);
      await killAll([join(dir, 'cgroup.procs')]).catch(() => undefined);
      await removeDir(dir).catch(() => undefined);
    }
  }
}
