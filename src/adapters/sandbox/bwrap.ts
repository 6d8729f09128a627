import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/**
 * A confinement for commands MAKER did not write (a subtask's check, proposed by a model): no
 * network, no writes outside one directory, nothing left running after it.
 */
export interface CheckSandbox {
  readonly name: string;
  /** The argv that runs `command` (through `sh -c`) confined, with `dir` its only writable place. */
  argv(command: string, dir: string): string[];
}

/**
 * bubblewrap (`bwrap`, Debian's `bubblewrap`): the file system read-only, a private `/tmp`, `dir`
 * writable, no network, its own process, IPC and UTS namespaces, a new session (no terminal
 * injection), everything killed with it. Reads are not confined.
 */
export const bubblewrap: CheckSandbox = {
  name: 'bubblewrap',
  argv: (command, dir) => [
    'bwrap',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    '--bind',
    dir,
    dir,
    '--unshare-net',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--die-with-parent',
    '--new-session',
    '--chdir',
    dir,
    '--setenv',
    'HOME',
    dir,
    '--setenv',
    'TMPDIR',
    '/tmp',
    'sh',
    '-c',
    command,
  ],
};

const probes = new Map<string, Promise<CheckSandbox | undefined>>();

/**
 * The sandbox this machine can run (bubblewrap, probed once per PATH), or undefined when none
 * works here (not installed, or the kernel refuses its namespaces).
 */
export function findSandbox(
  path: string = process.env['PATH'] ?? '',
): Promise<CheckSandbox | undefined> {
  let probe = probes.get(path);
  if (probe === undefined) {
    const [file, ...args] = bubblewrap.argv('true', '/tmp');
    probe = execFileAsync(file as string, args, { timeout: 10_000, env: { PATH: path } }).then(
      () => bubblewrap,
      () => undefined,
    );
    probes.set(path, probe);
  }
  return probe;
}

/** Why `--run-checks` cannot be honoured here, for the message that refuses it. */
export const NO_SANDBOX =
  'Checks run commands a model proposed, so MAKER runs them only inside a sandbox (no network, no writes outside a scratch checkout), and none works on this machine. Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or run without --run-checks.';
