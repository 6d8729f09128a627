import { readdir, readFile, stat } from 'node:fs/promises';
import { currentProcess } from '../os/process-identity.js';
import {
  cgroupBases,
  parseCgroupLayout,
  sweepGroups,
  type Cgroup,
  type CgroupMaker,
} from './cgroup.js';
import { which } from './which.js';

/** What one sandboxed command may use. */
export interface Limits {
  /** Processes at once (its threads count too). */
  readonly processes: number;
  /** Memory, all its processes and the memory file systems they write to together. */
  readonly memoryBytes: number;
  /** CPU time of any one process. */
  readonly cpuSeconds: number;
  /** The largest file it may write. */
  readonly fileBytes: number;
}

const MiB = 1024 * 1024;

/** A check's limits (its time limit and output cap are its caller's). */
export const CHECK_LIMITS: Limits = {
  processes: 256,
  memoryBytes: 2048 * MiB,
  cpuSeconds: 600,
  fileBytes: 512 * MiB,
};

/**
 * A check's limits: {@link CHECK_LIMITS}, its memory lowered to `memoryMiB` MiB when that is below
 * it (tests only: a test reaches the same limit with less memory written); never raised.
 */
export function checkLimits(memoryMiB?: number): Limits {
  if (memoryMiB === undefined || !(memoryMiB > 0) || memoryMiB * MiB >= CHECK_LIMITS.memoryBytes)
    return CHECK_LIMITS;
  return { ...CHECK_LIMITS, memoryBytes: Math.round(memoryMiB * MiB) };
}

/** A dependency install's limits (it writes the cache entry on disk, so files may be larger). */
export const INSTALL_LIMITS: Limits = {
  processes: 512,
  memoryBytes: 4096 * MiB,
  cpuSeconds: 1800,
  fileBytes: 1024 * MiB,
};

/** How the limits hold on this machine: by a control group, by per-process limits, or not at all. */
export interface LimitSupport {
  readonly processes: 'cgroup v2' | 'cgroup v1' | 'rlimit' | 'none';
  readonly memory: 'cgroup v2' | 'cgroup v1' | 'rlimit' | 'none';
}

/** One sandboxed command's limits while it runs. */
export interface Confinement {
  /** `argv`, started so that it runs inside its group (if any) and under the per-process limits. */
  wrap(argv: readonly string[]): string[];
  /** Which limits it reached. */
  reached(): Promise<{ processes: boolean; memory: boolean }>;
  /** Kills whatever of it is left and removes its group. */
  release(): Promise<void>;
}

interface Machine {
  readonly maker: CgroupMaker | undefined;
  readonly prlimit: string | undefined;
  readonly sh: string | undefined;
}

let machine: Promise<Machine> | undefined;
let made = 0;

/** What this process may use to hold limits (found once, old groups of dead processes swept then). */
function findMachine(): Promise<Machine> {
  machine ??= (async () => {
    const path = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
    const [prlimit, sh] = await Promise.all([which('prlimit', path), which('sh', path)]);
    const layout = parseCgroupLayout(
      await readFile('/proc/self/mountinfo', 'utf8').catch(() => ''),
      await readFile('/proc/self/cgroup', 'utf8').catch(() => ''),
    );
    for (const candidate of cgroupBases(layout, process.pid)) {
      try {
        const maker = await candidate();
        // A trial group proves this process may make, fill and remove them.
        const { pid, startTime } = currentProcess();
        const trial = await maker.make(`${pid}-${startTime ?? '0'}-trial`, 8, 64 * MiB);
        await trial.remove();
        await sweepGroups(maker.bases);
        return { maker, prlimit, sh };
      } catch {
        // Not writable here: the next candidate.
      }
    }
    return { maker: undefined, prlimit, sh };
  })();
  return machine;
}

/** How the limits hold here (see {@link LimitSupport}). */
export async function limitSupport(): Promise<LimitSupport> {
  const { maker, prlimit } = await findMachine();
  const perProcess = prlimit === undefined ? 'none' : 'rlimit';
  return {
    processes: maker?.kind ?? (isRoot() ? 'none' : perProcess),
    memory: maker?.kind ?? perProcess,
  };
}

/**
 * The confinement of one sandboxed command: its own group with `limits.processes` and
 * `limits.memoryBytes` where a control group can be made; always, where `prlimit` is found, the
 * per-process limits on memory (`RLIMIT_DATA`), CPU time, file size and core dumps, and, for a
 * user other than root with no group, on the user's processes (`RLIMIT_NPROC`, counted above
 * what the user runs already: it binds every process of that user, and never root's).
 */
export async function confine(limits: Limits): Promise<Confinement> {
  const { maker, prlimit, sh } = await findMachine();
  const { pid, startTime } = currentProcess();
  let group: Cgroup | undefined;
  if (maker !== undefined) {
    made += 1;
    group = await maker
      .make(`${pid}-${startTime ?? '0'}-${made}`, limits.processes, limits.memoryBytes)
      .catch(() => undefined);
  }
  const rlimits: string[] = [];
  if (prlimit !== undefined) {
    rlimits.push(
      prlimit,
      `--data=${limits.memoryBytes}`,
      `--cpu=${limits.cpuSeconds}`,
      `--fsize=${limits.fileBytes}`,
      '--core=0',
    );
    if (group === undefined && !isRoot())
      rlimits.push(`--nproc=${(await userProcesses()) + limits.processes}`);
    rlimits.push('--');
  }
  return {
    wrap: (argv) => {
      const inner = [...rlimits, ...argv];
      if (group === undefined || sh === undefined) return inner;
      // The first process joins the groups, then becomes the sandbox: all it starts is inside.
      return [
        sh,
        '-c',
        'for f in "$@"; do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done; shift; exec "$@"',
        'maker-limits',
        ...group.procs,
        '--',
        ...inner,
      ];
    },
    reached: () => group?.reached() ?? Promise.resolve({ processes: false, memory: false }),
    release: () => group?.remove() ?? Promise.resolve(),
  };
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/** How many processes this user runs now (what `RLIMIT_NPROC` counts besides the sandbox). */
async function userProcesses(): Promise<number> {
  const uid = process.getuid?.();
  let count = 0;
  for (const name of await readdir('/proc').catch(() => [])) {
    if (!/^\d+$/.test(name)) continue;
    const owner = await stat(`/proc/${name}`).then(
      (s) => s.uid,
      () => undefined,
    );
    if (owner === uid) count += 1;
  }
  return count;
}
