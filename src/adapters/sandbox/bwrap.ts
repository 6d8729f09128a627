import { execFile } from 'node:child_process';
import { realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { installArgv } from './bwrap-install.js';
import { unshareSandbox } from './unshare.js';

const execFileAsync = promisify(execFile);

/** A place a check must not see: shown as an empty directory, or an empty file. */
export interface Hidden {
  readonly path: string;
  readonly directory: boolean;
}

/** A path shown read-only at `target` inside the sandbox (an installed dependency, for example). */
export interface ReadOnlyBind {
  readonly source: string;
  readonly target: string;
}

/**
 * A confinement for commands MAKER did not write (a subtask's check, proposed by a model): no
 * network, no writes outside one directory, nothing left running after it.
 */
export interface CheckSandbox {
  readonly name: string;
  /**
   * The argv that runs `command` (through `sh -c`) confined, with `dir` its only writable place and
   * each of `hidden` (existing paths, see {@link hiddenPlaces}) out of its sight, and each of
   * `readOnly` shown read-only at its target (after the rest: under `dir` too).
   */
  argv(
    command: string,
    dir: string,
    hidden?: readonly Hidden[],
    readOnly?: readonly ReadOnlyBind[],
  ): string[];
  /**
   * The argv for a dependency install: confined like a check but **sharing the network**, with
   * `dir` (the install's cache directory) its only writable place, `cwd` its working directory,
   * `hidden` out of sight and `readOnly` shown again under hidden places (after them).
   */
  installArgv(
    command: string,
    dir: string,
    cwd: string,
    hidden: readonly Hidden[],
    readOnly?: readonly ReadOnlyBind[],
  ): string[];
}

/**
 * bubblewrap (`bwrap`, Debian's `bubblewrap`): the file system read-only, a private `/tmp`, `dir`
 * writable, no network, no capabilities (under root too: it could remount the system writable),
 * its own process, IPC and UTS namespaces, a new session (no terminal injection), everything
 * killed with it. Reads are confined only by `hidden`.
 */
export const bubblewrap: CheckSandbox = {
  name: 'bubblewrap',
  argv: (command, dir, hidden = [], readOnly = []) => [
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
    ...hidden.flatMap((h) =>
      h.directory ? ['--tmpfs', h.path] : ['--ro-bind', '/dev/null', h.path],
    ),
    '--bind',
    dir,
    dir,
    ...readOnly.flatMap((b) => ['--ro-bind', b.source, b.target]),
    '--unshare-net',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
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
  installArgv,
};

/**
 * Which of `paths` exist, as places to hide (a path that is gone has nothing to hide), each by its
 * real path: a sandbox mounts over a path inside its own view, where a symbolic link on the way (a
 * home under a linked `/home`) would not lead to it (bubblewrap then fails to start).
 */
export async function hiddenPlaces(paths: readonly string[]): Promise<Hidden[]> {
  const found = await Promise.all(
    paths.map((path) =>
      realpath(path).then(
        async (real) => ({ path: real, directory: (await stat(real)).isDirectory() }),
        () => undefined,
      ),
    ),
  );
  return found.filter((h) => h !== undefined);
}

/**
 * Where credentials live under a home directory (SSH and GPG keys, git, gh, Gemini CLI, cloud and
 * package-registry logins): read by a check, they would reach its output, the state and the model.
 */
const SECRET_PLACES = [
  '.ssh',
  '.gnupg',
  '.git-credentials',
  '.netrc',
  '.config/gh',
  '.config/git/credentials',
  '.gemini',
  '.npmrc',
  '.pypirc',
  '.docker',
  '.kube',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.password-store',
  '.local/share/keyrings',
];

/** The credential stores present under `home`, to hide from a check. */
export function secretPlaces(home: string): Promise<Hidden[]> {
  return hiddenPlaces(SECRET_PLACES.map((p) => join(home, p)));
}

/** The sandboxes MAKER can use, in the order it tries them. */
export const SANDBOXES: readonly CheckSandbox[] = [bubblewrap, unshareSandbox];

/**
 * `MAKER_SANDBOX`'s values: `bubblewrap` or `unshare` use only that one (if it works), `none`
 * none (checks do not run: results are unverified); unset (or anything else), the first that works.
 */
export const SANDBOX_CHOICES = ['bubblewrap', 'unshare', 'none'] as const;

/** Which sandboxes `choice` (MAKER_SANDBOX's value) lets MAKER try, in order. */
export function sandboxesFor(choice: string | undefined): readonly CheckSandbox[] {
  if (choice === 'none') return [];
  const only = SANDBOXES.filter((s) => s.name === choice);
  return only.length > 0 ? only : SANDBOXES;
}

const probes = new Map<string, Promise<boolean>>();

/**
 * Whether `sandbox` works here with this PATH (probed once per PATH): it runs `true` confined as a
 * check is. Not installed, or the kernel refusing its namespaces, is false.
 */
export function sandboxWorks(
  sandbox: CheckSandbox,
  path: string = process.env['PATH'] ?? '',
): Promise<boolean> {
  const key = `${sandbox.name}\0${path}`;
  let probe = probes.get(key);
  if (probe === undefined) {
    const [file, ...args] = sandbox.argv('true', '/tmp');
    probe = execFileAsync(file as string, args, { timeout: 10_000, env: { PATH: path } }).then(
      () => true,
      () => false,
    );
    probes.set(key, probe);
  }
  return probe;
}

/**
 * The sandbox this machine can run: bubblewrap, else util-linux `unshare` (each probed once per
 * PATH), or undefined when none works here. `choice` (the environment's `MAKER_SANDBOX`) narrows
 * the candidates (see {@link sandboxesFor}).
 */
export async function findSandbox(
  path: string = process.env['PATH'] ?? '',
  choice: string | undefined = process.env['MAKER_SANDBOX'],
): Promise<CheckSandbox | undefined> {
  for (const sandbox of sandboxesFor(choice)) if (await sandboxWorks(sandbox, path)) return sandbox;
  return undefined;
}

/** Why `--run-checks` cannot be honoured here, for the message that refuses it. */
export const NO_SANDBOX =
  'Checks run commands a model proposed, so MAKER runs them only inside a sandbox (no network, no writes outside a scratch checkout), and none works on this machine (bubblewrap, or util-linux unshare with unprivileged user namespaces). Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or run without --run-checks.';
