import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Socket } from 'node:net';

/**
 * A `gemini` process MAKER starts, in a process group of its own, so that ending it ends everything
 * it started too (Gemini CLI relaunches itself as a child, and its parent ignores SIGINT and
 * SIGTERM): {@link GroupChild.kill} sends SIGKILL to the whole group at once. The group has no
 * terminal (a new session), so no login prompt can reach a person's screen.
 *
 * MAKER itself may end without a chance to clean up (SIGKILL, a crash): a small `sh` leads the
 * group and watches a pipe only MAKER holds the other end of; when MAKER is gone, it kills the
 * group. No `gemini` outlives MAKER ({@link removeWhenOrphaned} does the same for a directory).
 */

/**
 * The group's leader: runs the command (its arguments). Its watcher reads fd 3 until end of file
 * (MAKER never writes there), which comes only when MAKER's end closes, however it ended; it
 * outlives the command on purpose (what the command started may still run): MAKER ends the group
 * when the command exits, and if MAKER is gone, the watcher does. The command does not inherit
 * fd 3, nor the watcher its output.
 */
const LEADER = `( while read -r _; do :; done <&3; kill -KILL 0 ) >/dev/null 2>&1 &
exec 3<&-
"$@"`;

/** How long the group's watcher may take to end once the command exited (it is killed then). */
const WATCHER_GRACE_MS = 5000;

export interface GroupExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Set when the command could not be started at all. */
  readonly startError?: Error | undefined;
}

export interface GroupChild {
  readonly pid: number | undefined;
  readonly stdin: ChildProcessWithoutNullStreams['stdin'];
  readonly stdout: ChildProcessWithoutNullStreams['stdout'];
  readonly stderr: ChildProcessWithoutNullStreams['stderr'];
  /** Resolves once the process ended and its output closed. */
  readonly exited: Promise<GroupExit>;
  /** Ends the whole group now (SIGKILL); harmless once it ended. */
  kill(): void;
}

/**
 * Starts `command` (never through a shell of the caller's making: the arguments are passed as
 * arguments) in a process group of its own.
 */
export function spawnGroup(
  command: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly env: NodeJS.ProcessEnv },
): GroupChild {
  const posix = process.platform !== 'win32';
  const child = posix
    ? spawn('/bin/sh', ['-c', LEADER, 'maker-gemini', command, ...args], {
        cwd: options.cwd,
        env: options.env,
        stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
        detached: true,
      })
    : spawn(command, [...args], {
        cwd: options.cwd,
        env: options.env,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
  // MAKER's end of the watcher's pipe: held open (never written) for as long as MAKER lives.
  const lifeline = posix ? (child.stdio[3] as Socket | null) : null;
  lifeline?.on('error', () => undefined);
  lifeline?.unref();
  // A write to a child that is gone is reported by its exit, not as an unhandled error.
  child.stdin?.on('error', () => undefined);
  let ended = false;
  let closed = false;
  const kill = () => {
    // Once closed, its group is gone (killed at its exit): the number may be another's by now.
    if (child.pid === undefined || closed) return;
    try {
      if (posix) process.kill(-child.pid, 'SIGKILL');
      else if (!ended) child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  };
  const exited = new Promise<GroupExit>((resolve) => {
    let startError: Error | undefined;
    child.on('error', (error) => {
      startError = error;
    });
    let guard: NodeJS.Timeout | undefined;
    child.on('exit', () => {
      ended = true;
      // Whatever the command left running in its group goes with it.
      kill();
      // The group's end closes the watcher's pipe, and only then is the child closed. Until then
      // the lifeline must hold the event loop (unreferenced, a caller awaiting this exit with
      // nothing else to do would see Node end with exit code 13, an unsettled await); if the
      // watcher has not ended within a few seconds, MAKER's end is closed, which ends it.
      lifeline?.ref();
      guard = setTimeout(() => lifeline?.destroy(), WATCHER_GRACE_MS);
    });
    child.on('close', (code, signal) => {
      ended = true;
      closed = true;
      clearTimeout(guard);
      lifeline?.destroy();
      resolve({ code, signal, startError });
    });
  });
  return {
    pid: child.pid,
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr,
    exited,
    kill,
  };
}

/**
 * Removes `dir` if MAKER ends without removing it (SIGKILL, a crash): a small `sh` that waits for
 * MAKER's end of a pipe to close. The returned function, called when MAKER removes `dir` itself,
 * ends it. Nothing on Windows.
 */
export function removeWhenOrphaned(dir: string): () => void {
  if (process.platform === 'win32') return () => undefined;
  const janitor = spawn(
    '/bin/sh',
    // Tried again a moment later: a process still writing there (its group is being ended at the
    // same time) can leave a file behind the first removal.
    [
      '-c',
      'while read -r _; do :; done <&3; for _ in 1 2 3 4 5; do rm -rf -- "$1" 2>/dev/null; [ -e "$1" ] || exit 0; sleep 1; done',
      'maker-janitor',
      dir,
    ],
    // `rm` and `sleep` from the system, whatever PATH MAKER was given.
    {
      stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
      detached: true,
      env: { PATH: '/bin:/usr/bin' },
    },
  );
  const lifeline = janitor.stdio[3] as Socket | null;
  lifeline?.on('error', () => undefined);
  lifeline?.unref();
  janitor.on('error', () => undefined);
  janitor.unref();
  return () => {
    lifeline?.destroy();
    if (janitor.exitCode === null && janitor.pid !== undefined)
      try {
        process.kill(janitor.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
  };
}
