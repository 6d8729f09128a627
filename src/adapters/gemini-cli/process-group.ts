import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Socket } from 'node:net';

/**
 * A `gemini` process MAKER starts, in a process group of its own, so that ending it ends everything
 * it started too (Gemini CLI relaunches itself as a child, and its parent ignores SIGINT and
 * SIGTERM): {@link GroupChild.kill} sends SIGKILL to the whole group at once. The group has no
 * terminal (a new session), so no login prompt can reach a person's screen.
 *
 * MAKER itself may end without a chance to clean up (SIGKILL, a crash): a small `sh` leads the
 * group and watches a pipe only MAKER holds the other end of; when MAKER is gone, it removes
 * MAKER's private directory for these calls and kills the group. No `gemini` outlives MAKER.
 */

/**
 * The group's leader: `$1` is the directory to remove when MAKER is gone (may be empty), the rest
 * the command. Its watcher reads fd 3 until end of file (MAKER never writes there), which comes
 * only when MAKER's end closes, however it ended. The command does not inherit fd 3.
 */
const LEADER = `dir=$1; shift
( while read -r _; do :; done <&3; if [ -n "$dir" ]; then rm -rf -- "$dir"; fi; kill -KILL 0 ) &
watcher=$!
exec 3<&-
"$@"
status=$?
kill -KILL "$watcher" 2>/dev/null
exit "$status"`;

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
 * arguments) in a process group of its own. `removeOnOrphan`: a directory the group removes if
 * MAKER ends without closing it.
 */
export function spawnGroup(
  command: string,
  args: readonly string[],
  options: {
    readonly cwd: string;
    readonly env: NodeJS.ProcessEnv;
    readonly removeOnOrphan?: string | undefined;
  },
): GroupChild {
  const posix = process.platform !== 'win32';
  const child = posix
    ? spawn(
        '/bin/sh',
        ['-c', LEADER, 'maker-gemini', options.removeOnOrphan ?? '', command, ...args],
        {
          cwd: options.cwd,
          env: options.env,
          stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
          detached: true,
        },
      )
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
    child.on('exit', () => {
      ended = true;
      // Whatever the command left running in its group goes with it.
      kill();
    });
    child.on('close', (code, signal) => {
      ended = true;
      closed = true;
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
