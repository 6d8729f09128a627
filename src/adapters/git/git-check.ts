import { rm } from 'node:fs/promises';
import { AbortedError, MakerError } from '../../core/errors.js';
import type { CheckDependencies } from '../deps/dependency-cache.js';
import type { CheckSandbox } from '../sandbox/bwrap.js';
import type { HostView } from '../sandbox/host-view.js';
import { CHECK_LIMITS, type Limits } from '../sandbox/limits.js';
import { runSandboxed, stopMessage } from '../sandbox/run-sandboxed.js';
import {
  CHECKOUT,
  MAKER_DIR,
  SANDBOX_HOME,
  scratchMounts,
  type Mount,
  type SandboxSpec,
} from '../sandbox/view.js';
import { gitBinary } from './git-binary.js';
import { direct, type GitLauncher } from './git-launcher.js';
import { countGitProcess, gitEnv } from './run-git.js';

/** Settings passed from MAKER's environment to a check: the locale and terminal, no keys or tokens. */
const PASSED_ENV = ['LANG', 'LC_ALL', 'TERM'];

/** What a check may print on each of stdout and stderr before it is stopped. */
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

/**
 * How much of a check's output is handed back (its tail), the reason it was stopped included:
 * far more than the engine keeps, which redacts it first, so no cut here splits a key that the
 * redaction would then miss.
 */
const KEPT_CHARS = 64 * 1024;

/** The memory file systems a check writes in: its checkout, `/tmp` and its home. */
const MiB = 1024 * 1024;
export const CHECK_SIZES = { checkoutBytes: 1024 * MiB, tmpBytes: 512 * MiB, homeBytes: 256 * MiB };

/** Where the checked tree is shown read-only inside, to be copied into the writable checkout. */
const SOURCE = `${MAKER_DIR}/source`;

/**
 * The spec of a check: the host view, an empty checkout of `CHECKOUT` (in memory, size-limited)
 * filled with a copy of the checked tree, an empty home and `/tmp`, and the dependencies' view.
 * The copy is made inside the sandbox, so nothing of the tree is ever a mount's source but the
 * directory MAKER wrote it to.
 */
export function checkSpec(
  view: HostView,
  scratch: string,
  command: string,
  deps: CheckDependencies | undefined,
  env: Readonly<Record<string, string | undefined>>,
): SandboxSpec {
  const passed = PASSED_ENV.flatMap((k) => {
    const value = env[k];
    return value === undefined ? [] : [[k, value] as const];
  });
  const mounts: Mount[] = [
    ...view.mounts,
    ...scratchMounts(CHECK_SIZES),
    { kind: 'tmpfs', target: CHECKOUT, sizeBytes: CHECK_SIZES.checkoutBytes },
    { kind: 'ro-bind', source: scratch, target: SOURCE },
    ...(deps?.mounts ?? []),
  ];
  return {
    mounts,
    env: {
      PATH: deps?.pathFirst === undefined ? view.path : `${deps.pathFirst}:${view.path}`,
      HOME: SANDBOX_HOME,
      TMPDIR: '/tmp',
      ...Object.fromEntries(passed),
      ...deps?.env,
    },
    cwd: CHECKOUT,
    argv: [
      '/bin/sh',
      '-c',
      `cp -R -p -P -- ${SOURCE}/. ${CHECKOUT}/ || { echo "maker: the tree could not be copied into the sandbox" >&2; exit 125; }; cd ${CHECKOUT} && exec /bin/sh -c "$1"`,
      'maker-check',
      command,
    ],
  };
}

/** A check's inputs beyond its command. */
export interface CheckRun {
  readonly sandbox: CheckSandbox;
  /** What of the host the check sees (awaited once the checkout is written). */
  readonly view: HostView | Promise<HostView>;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  /** How the check sees the installed dependencies, given the checkout written (read-only). */
  readonly dependencies?: ((scratch: string) => Promise<CheckDependencies>) | undefined;
  /** Where git finds the tree's objects besides the repository (a scratch object store). */
  readonly objectEnv?: Readonly<Record<string, string>> | undefined;
  /** What starts the checkout's git (the workspace's small helper), instead of this process. */
  readonly launcher?: GitLauncher | undefined;
  /** MAKER's environment: a check gets only its locale and terminal. */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** The check's limits (default {@link CHECK_LIMITS}). */
  readonly limits?: Limits | undefined;
}

/**
 * Runs `command` confined by `run.sandbox` on a fresh copy of `treeish` from the repository at
 * `dir` (written to `scratch` first), with a timeout, no input and the sandbox's limits; resolves
 * with whether it passed and the tail of its output, ending with why it was stopped if it was.
 * When `signal` aborts, the check is killed and the call rejects with {@link AbortedError}.
 */
export async function runCheckIn(
  dir: string,
  scratch: string,
  treeish: string,
  command: string,
  run: CheckRun,
): Promise<{ ok: boolean; output: string }> {
  const cancelled = () => {
    if (run.signal?.aborted === true) throw new AbortedError(run.signal.reason);
  };
  cancelled();
  // A tree git holds may still not fit a file system (a path too long for it): the candidate's
  // check then fails, as its content's doing, instead of the run. Written through a private index,
  // not `git archive`, whose `export-ignore` and `export-subst` attributes would change the tree.
  const checkout = await checkoutTree(dir, treeish, scratch, run.objectEnv ?? {}, run.launcher);
  cancelled();
  if (checkout !== undefined)
    return { ok: false, output: tail(checkout, '\nthe tree could not be checked out to run it') };
  const deps = await run.dependencies?.(scratch);
  const env = run.env ?? process.env;
  const spec = checkSpec(await run.view, scratch, command, deps, env);
  const options = {
    timeoutMs: run.timeoutMs,
    limits: run.limits ?? CHECK_LIMITS,
    maxOutputBytes: MAX_OUTPUT_BYTES,
  };
  const result = await runSandboxed(run.sandbox, spec, { ...options, signal: run.signal });
  return {
    ok: result.ok,
    output: tail(result.stdout + result.stderr, stopMessage(result.stopped, options)),
  };
}

/**
 * Writes `treeish` into `scratch` through a private index beside it (removed after), in one git
 * process (`read-tree --reset -u` with `scratch` as its work tree: the index read and every file
 * written, through the same checks on paths as `checkout-index`), whatever sparse checkout the
 * repository has set; undefined when it worked, else what git said (the tree's doing). git is
 * started by `launcher` when given, else from this process; no shell either way. A git that did
 * not run to its end (it could not start, its launcher died twice) is a transport failure,
 * thrown (`git-transport`, retryable), never the tree's fault.
 */
async function checkoutTree(
  dir: string,
  treeish: string,
  scratch: string,
  objectEnv: Readonly<Record<string, string>>,
  launcher: GitLauncher | undefined,
): Promise<string | undefined> {
  const index = `${scratch}.index`;
  const extraEnv = { ...objectEnv, GIT_INDEX_FILE: index };
  const argv = [
    '-C',
    dir,
    '-c',
    'core.sparseCheckout=false',
    `--work-tree=${scratch}`,
    'read-tree',
    '--reset',
    '-u',
    treeish,
  ];
  countGitProcess(['read-tree']);
  try {
    const result =
      launcher === undefined
        ? await direct(gitBinary(), argv, gitEnv(extraEnv), '')
        : await launcher.run(gitBinary(), argv, extraEnv, '');
    if (result.code === 0) return undefined;
    const said = result.stderr.trim() || result.error || `exit status ${result.code ?? 'none'}`;
    if (result.code === null)
      throw new MakerError('git-transport', `git read-tree did not run: ${said}`, {
        isRetryable: true,
      });
    return said;
  } finally {
    await rm(index, { force: true });
  }
}

/** The end of `output`, then `reason`: kept last, so every shorter tail taken later shows it. */
function tail(output: string, reason: string): string {
  return `${output.slice(-(KEPT_CHARS - reason.length))}${reason}`;
}
