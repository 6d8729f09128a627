import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { AbortedError } from '../../core/errors.js';
import type { CheckDependencies } from '../deps/dependency-cache.js';
import type { CheckSandbox, Hidden } from '../sandbox/bwrap.js';
import { gitBinary } from './git-binary.js';
import { gitEnv } from './run-git.js';

const execFileAsync = promisify(execFile);

/** Only what a build needs from the environment: no keys or tokens reach a check. */
const PASSED_ENV = ['PATH', 'LANG', 'LC_ALL', 'TERM'];

/** What a check may print on each of stdout and stderr before it is stopped. */
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

/** How much of a check's output is kept (its tail), the reason it was stopped included. */
const KEPT_CHARS = 2000;

/**
 * Runs `command` confined by `sandbox` in `scratch`, a fresh checkout of `treeish` from the
 * repository at `dir`, with a timeout, no input and `hidden` out of its sight; resolves with
 * whether it passed and the tail of its output, ending with why it was stopped if it was. When
 * `signal` aborts, the check is killed and the call rejects with {@link AbortedError}.
 * `dependencies` says how the check sees the installed dependencies of the checkout (read-only);
 * `objectEnv` where git finds the tree's objects besides the repository (a scratch object store).
 */
export async function runCheckIn(
  dir: string,
  scratch: string,
  treeish: string,
  command: string,
  timeoutMs: number,
  sandbox: CheckSandbox,
  hidden: readonly Hidden[] = [],
  signal?: AbortSignal,
  dependencies?: (checkout: string) => Promise<CheckDependencies>,
  objectEnv: Readonly<Record<string, string>> = {},
): Promise<{ ok: boolean; output: string }> {
  const cancelled = () => {
    if (signal?.aborted === true) throw new AbortedError(signal.reason);
  };
  cancelled();
  // A tree git holds may still not fit a file system (a path too long for it): the candidate's
  // check then fails, as its content's doing, instead of the run. Written through a private index,
  // not `git archive`, whose `export-ignore` and `export-subst` attributes would change the tree.
  const checkout = await checkoutTree(dir, treeish, scratch, objectEnv);
  cancelled();
  if (checkout !== undefined)
    return { ok: false, output: tail(checkout, '\nthe tree could not be checked out to run it') };
  const deps = await dependencies?.(scratch);
  const env = {
    ...(Object.fromEntries(
      PASSED_ENV.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]]])),
    ) as Record<string, string>),
    ...deps?.env,
  };
  const [file, ...args] = sandbox.argv(command, scratch, hidden, deps?.readOnly);
  const running = execFileAsync(file as string, args, {
    cwd: scratch,
    env,
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: MAX_OUTPUT_BYTES,
    ...(signal === undefined ? {} : { signal }),
  });
  running.child.stdin?.end();
  return running
    .then((r) => ({ ok: true, output: tail(r.stdout + r.stderr, '') }))
    .catch((error: { stdout?: string; stderr?: string; killed?: boolean; code?: unknown }) => {
      cancelled();
      const stopped =
        error.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER'
          ? `\nstopped: it printed more than ${MAX_OUTPUT_BYTES} bytes`
          : error.killed === true
            ? `\ntimed out after ${timeoutMs} ms`
            : '';
      return { ok: false, output: tail(`${error.stdout ?? ''}${error.stderr ?? ''}`, stopped) };
    });
}

/**
 * Writes `treeish` into `scratch` through a private index beside it (removed after); undefined
 * when it worked, else what git said. git is started directly, no shell.
 */
async function checkoutTree(
  dir: string,
  treeish: string,
  scratch: string,
  objectEnv: Readonly<Record<string, string>>,
): Promise<string | undefined> {
  const index = `${scratch}.index`;
  const env = gitEnv({ ...objectEnv, GIT_INDEX_FILE: index });
  const git = (args: readonly string[]) =>
    execFileAsync(gitBinary(), ['-C', dir, ...args], { env, maxBuffer: MAX_OUTPUT_BYTES });
  try {
    await git(['read-tree', treeish]);
    await git(['checkout-index', '-a', `--prefix=${scratch}/`]);
    return undefined;
  } catch (error) {
    return (error as { stderr?: string }).stderr ?? (error as Error).message;
  } finally {
    await rm(index, { force: true });
  }
}

/** The end of `output`, then `reason`: kept last, so every shorter tail taken later shows it. */
function tail(output: string, reason: string): string {
  return `${output.slice(-(KEPT_CHARS - reason.length))}${reason}`;
}
