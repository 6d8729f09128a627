import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { CheckSandbox, Hidden } from '../sandbox/bwrap.js';

const execFileAsync = promisify(execFile);

/** Only what a build needs from the environment: no keys or tokens reach a check. */
const PASSED_ENV = ['PATH', 'LANG', 'LC_ALL', 'TERM'];

/**
 * Runs `command` confined by `sandbox` in `scratch`, a fresh checkout of `treeish` from the
 * repository at `dir`, with a timeout and `hidden` out of its sight; resolves with whether it
 * passed and the tail of its output.
 */
export async function runCheckIn(
  dir: string,
  scratch: string,
  treeish: string,
  command: string,
  timeoutMs: number,
  sandbox: CheckSandbox,
  hidden: readonly Hidden[] = [],
): Promise<{ ok: boolean; output: string }> {
  await execFileAsync('sh', [
    '-c',
    `git -C "$1" archive --format=tar "$2" | tar -x -C "$3"`,
    'sh',
    dir,
    treeish,
    scratch,
  ]);
  const env = Object.fromEntries(
    PASSED_ENV.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]]])),
  ) as Record<string, string>;
  const [file, ...args] = sandbox.argv(command, scratch, hidden);
  const result = await execFileAsync(file as string, args, {
    cwd: scratch,
    env,
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: 4 * 1024 * 1024,
  })
    .then((r) => ({ ok: true, output: r.stdout + r.stderr }))
    .catch((error: { stdout?: string; stderr?: string; killed?: boolean }) => ({
      ok: false,
      output: `${error.killed === true ? `timed out after ${timeoutMs} ms\n` : ''}${error.stdout ?? ''}${error.stderr ?? ''}`,
    }));
  return { ok: result.ok, output: result.output.slice(-2000) };
}
