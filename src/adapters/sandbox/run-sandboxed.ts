import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { lstat, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AbortedError } from '../../core/errors.js';
import type { CheckSandbox } from './bubblewrap.js';
import {
  inheritedDescriptors,
  sandboxCall,
  spawnSandbox,
  type SandboxCall,
} from './descriptors.js';
import { confine, type Limits } from './limits.js';
import type { SandboxSpec } from './view.js';

/** Why a sandboxed command was stopped, or reached a limit and failed. */
export type StopReason = 'timeout' | 'output' | 'processes' | 'memory' | 'disk';

export interface SandboxedResult {
  /** Exit status 0 and no limit reached. */
  readonly ok: boolean;
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number | null;
  /** The limit it reached, when one did. */
  readonly stopped?: StopReason | undefined;
}

export interface SandboxedOptions {
  readonly timeoutMs: number;
  readonly limits: Limits;
  /** What it may print on each of stdout and stderr before it is stopped. */
  readonly maxOutputBytes: number;
  readonly signal?: AbortSignal | undefined;
  /** Read every few seconds while it runs: a reason stops it (a disk budget it went over). */
  readonly watch?: (() => Promise<StopReason | undefined>) | undefined;
}

/** How often `watch` is read. */
const WATCH_MS = 2000;

/** How often a running command's group is read for a process limit it ran into. */
const POLL_MS = 250;
/**
 * How long the output of a sandbox that was stopped is waited for once the sandbox itself exited: a
 * sandbox killed as it started can leave its command running outside it, holding the output open.
 */
const STRAY_OUTPUT_MS = 1000;

/** Every sandbox running now, killed if MAKER exits (a normal exit or a signal it handles). */
const running = new Set<ChildProcess>();
let exitHook = false;

function killOnExit(child: ChildProcess): void {
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const c of running) c.kill('SIGKILL');
    });
  }
  running.add(child);
}

/**
 * Runs `spec` in `sandbox` under its limits, with no input: stopped (SIGKILL, to the sandbox and
 * everything in its group) at `timeoutMs`, when it prints more than `maxOutputBytes` on either
 * stream, when it tries to run more processes than its limit, or when `signal` aborts (then the
 * call rejects with {@link AbortedError}, once nothing of it is left). Nothing it started outlives
 * the call: its process namespace dies with it, and its group is emptied and removed. A place
 * the spec hides that is gone from the host when the sandbox starts is not hidden: there is
 * nothing left there ({@link hiddenPlaceGone}).
 */
export async function runSandboxed(
  sandbox: CheckSandbox,
  spec: SandboxSpec,
  options: SandboxedOptions,
): Promise<SandboxedResult> {
  let current = spec;
  for (let attempt = 1; ; attempt++) {
    const result = await runOnce(sandbox, current, options);
    const gone = attempt > MAX_GONE ? undefined : await hiddenPlaceGone(sandbox, current, result);
    if (gone === undefined) return result;
    current = {
      ...current,
      mounts: current.mounts.filter((m) => !(m.kind === 'hide' && m.path === gone)),
    };
  }
}

/** How many places to hide may be gone in one run (each found by one failed start). */
const MAX_GONE = 3;

/**
 * A place `spec` was to hide that is gone from the host, when that is why `sandbox` failed before
 * its command ran: bubblewrap cannot mount over a path that no longer exists in a read-only view
 * (a file of /etc removed after /etc was read, while the checkout was written). Nothing is left
 * to hide there, so the run is started again without it. Only a place the spec hides and the host
 * no longer has counts, so nothing a command prints can drop a hidden place. (The unshare sandbox
 * skips such a place itself.)
 */
async function hiddenPlaceGone(
  sandbox: CheckSandbox,
  spec: SandboxSpec,
  result: SandboxedResult,
): Promise<string | undefined> {
  if (sandbox.name !== 'bubblewrap' || result.ok || result.code !== 1 || result.stdout !== '')
    return undefined;
  const path = /^bwrap: Can't (?:create file at|mkdir) (\/[^\n]*): [^\n]*$/.exec(
    result.stderr.trim(),
  )?.[1];
  if (path === undefined || !spec.mounts.some((m) => m.kind === 'hide' && m.path === path))
    return undefined;
  const there = await lstat(path).then(
    () => true,
    () => false,
  );
  return there ? undefined : path;
}

/** {@link runSandboxed}, once. */
async function runOnce(
  sandbox: CheckSandbox,
  spec: SandboxSpec,
  options: SandboxedOptions,
): Promise<SandboxedResult> {
  const { signal, timeoutMs, maxOutputBytes } = options;
  if (signal?.aborted === true) throw new AbortedError(signal.reason);
  const root = await mkdtemp(join(tmpdir(), 'maker-root-'));
  const confinement = await confine(options.limits);
  try {
    // Aborted while the sandbox was being prepared: nothing is started (a sandbox killed as it
    // starts may not take its command with it).
    if (aborted(signal)) throw new AbortedError(signal?.reason);
    const call = sandboxCall(sandbox, spec, root);
    const sandboxed = launchSandbox(
      confinement.wrap(call.argv),
      call,
      await inheritedDescriptors(),
    );
    const { child } = sandboxed;
    let stopped: StopReason | undefined;
    const stop = (reason: StopReason | undefined) => {
      stopped ??= reason;
      sandboxed.kill();
    };
    const out = collector(maxOutputBytes, () => stop('output'));
    const err = collector(maxOutputBytes, () => stop('output'));
    child.stdout?.on('data', out.add);
    child.stderr?.on('data', err.add);
    const timer = setTimeout(() => stop('timeout'), timeoutMs);
    const poll = setInterval(() => {
      void confinement.reached().then((r) => {
        if (r.processes) stop('processes');
      });
    }, POLL_MS);
    const watching =
      options.watch === undefined
        ? undefined
        : setInterval(() => {
            void options.watch?.().then((reason) => {
              if (reason !== undefined) stop(reason);
            });
          }, WATCH_MS);
    const onAbort = () => stop(undefined);
    signal?.addEventListener('abort', onAbort, { once: true });
    // It may have aborted while the sandbox was being prepared, before the listener was there.
    if (aborted(signal)) stop(undefined);
    let strays: NodeJS.Timeout | undefined;
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (status) => resolve(status));
      child.on('exit', (status) => {
        if (stopped === undefined && !aborted(signal)) return;
        strays = setTimeout(() => {
          for (const stream of child.stdio) stream?.destroy();
          resolve(status);
        }, STRAY_OUTPUT_MS);
      });
    }).finally(() => {
      clearTimeout(strays);
      clearTimeout(timer);
      clearInterval(poll);
      clearInterval(watching);
      signal?.removeEventListener('abort', onAbort);
      running.delete(child);
    });
    const reached = await confinement.reached();
    if (stopped === undefined && reached.processes) stopped = 'processes';
    if (stopped === undefined && reached.memory) stopped = 'memory';
    if (aborted(signal)) throw new AbortedError(signal?.reason);
    return {
      ok: code === 0 && stopped === undefined,
      stdout: out.text(),
      stderr: err.text(),
      code,
      stopped,
    };
  } finally {
    await confinement.release();
    await rm(root, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** How long a stop waits for a starting sandbox to name its first process before killing it. */
const PID_WAIT_MS = 2000;

/**
 * Starts the sandbox's argv (`[file, ...args]`) with no input and its output piped, and with
 * `inherited` (see {@link inheritedDescriptors}) replaced by `/dev/null`. `kill` stops
 * it: SIGKILL to the sandbox and, where it reports one (`reportsPid`, on descriptor 3), to its
 * first process, the init of its process namespace, so everything in there dies with it. A stop
 * that comes while the sandbox is starting waits (at most {@link PID_WAIT_MS}) for that pid or for
 * the report to close: bubblewrap killed between making its first process and reporting it
 * leaves that process behind, not yet tied to it, to run the command to its end or to wait forever.
 */
export function launchSandbox(
  argv: readonly string[],
  call: Pick<SandboxCall, 'reportsPid' | 'feeds'>,
  inherited: readonly number[] = [],
) {
  const { reportsPid } = call;
  const child = spawnSandbox(argv, call, inherited, {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  });
  killOnExit(child);
  let firstPid: number | undefined;
  let reported = !reportsPid;
  let wanted = false;
  let exited = false;
  let wait: NodeJS.Timeout | undefined;
  child.on('exit', () => {
    exited = true;
    clearTimeout(wait);
  });
  const kill = () => {
    // Only while the sandbox runs: once it exited, its first process was reaped and the pid free.
    if (firstPid !== undefined && !exited) {
      try {
        process.kill(firstPid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    child.kill('SIGKILL');
  };
  const settle = () => {
    if (reported) return;
    reported = true;
    clearTimeout(wait);
    if (wanted) kill();
  };
  const info = child.stdio[3] as Readable | null | undefined;
  let said = '';
  info?.on('data', (chunk: Buffer) => {
    said = (said + chunk.toString('utf8')).slice(0, 4096);
    const pid = /"child-pid":\s*(\d+)/.exec(said)?.[1];
    // Never 0 or 1 (0 would signal MAKER's own process group).
    if (pid === undefined || firstPid !== undefined || Number(pid) <= 1) return;
    firstPid = Number(pid);
    settle();
  });
  info?.on('close', settle);
  info?.on('error', settle);
  return {
    child,
    /** The pid of the sandbox's first process, once reported. */
    firstPid: () => firstPid,
    kill: () => {
      wanted = true;
      if (reported) kill();
      else
        wait ??= setTimeout(() => {
          reported = true;
          kill();
        }, PID_WAIT_MS);
    },
  };
}

/** Whether `signal` aborted (read anew: it changes while a run waits). */
function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** Gathers a stream's bytes up to `max`, calling `over` once when a byte more comes. */
function collector(max: number, over: () => void) {
  const chunks: Buffer[] = [];
  let size = 0;
  let told = false;
  return {
    add: (chunk: Buffer) => {
      const room = max - size;
      if (chunk.length > room) {
        if (room > 0) chunks.push(chunk.subarray(0, room));
        size = max;
        if (!told) {
          told = true;
          over();
        }
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
  };
}

/** What a stop says, at the end of the output a person and a model read. */
export function stopMessage(
  stopped: StopReason | undefined,
  options: {
    timeoutMs: number;
    limits: Limits;
    maxOutputBytes: number;
    diskBytes?: number;
    /** The time limit in seconds, not milliseconds (an install's is minutes long). */
    seconds?: boolean;
  },
): string {
  const MiB = 1024 * 1024;
  switch (stopped) {
    case 'timeout':
      return options.seconds === true
        ? `\ntimed out after ${Math.round(options.timeoutMs / 1000)} s`
        : `\ntimed out after ${options.timeoutMs} ms`;
    case 'output':
      return `\nstopped: it printed more than ${options.maxOutputBytes} bytes`;
    case 'processes':
      return `\nstopped: it tried to run more than ${options.limits.processes} processes at once (the sandbox's process limit)`;
    case 'memory':
      return `\nstopped: it used more than ${Math.round(options.limits.memoryBytes / MiB)} MiB of memory (the sandbox's memory limit)`;
    case 'disk':
      return `\nstopped: it wrote more than ${Math.round((options.diskBytes ?? 0) / MiB)} MiB`;
    case undefined:
      return '';
  }
}
