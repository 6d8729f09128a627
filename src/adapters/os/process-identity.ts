import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/** A process as a lock records it: enough to tell it from a later process that reuses its pid. */
export interface ProcessIdentity {
  readonly pid: number;
  /** When the process started (Linux: clock ticks since boot; elsewhere `ps`'s start time). */
  readonly startTime?: string | undefined;
  /** The kernel's boot id (Linux): a pid recorded before a reboot belongs to no process now. */
  readonly bootId?: string | undefined;
  readonly hostname?: string | undefined;
}

let self: ProcessIdentity | undefined;

/** This process's identity (computed once). */
export function currentProcess(): ProcessIdentity {
  self ??= {
    pid: process.pid,
    startTime: startTimeOf(process.pid),
    bootId: bootId(),
    hostname: hostname(),
  };
  return self;
}

/**
 * The identity of the running process `pid` on this machine, or undefined when no such process
 * exists. `alive` is `unknown` when the process exists but belongs to another user (EPERM).
 */
export function processIdentity(
  pid: number,
): (ProcessIdentity & { readonly alive: true | 'unknown' }) | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  let alive: true | 'unknown' = true;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
    alive = 'unknown';
  }
  return { pid, startTime: startTimeOf(pid), bootId: bootId(), hostname: hostname(), alive };
}

function startTimeOf(pid: number): string | undefined {
  try {
    // Field 22 of /proc/<pid>/stat; the command name (field 2) may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    try {
      const out = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        env: { PATH: process.env['PATH'] ?? '', LC_ALL: 'C' },
      }).trim();
      return out === '' ? undefined : out;
    } catch {
      return undefined;
    }
  }
}

function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
