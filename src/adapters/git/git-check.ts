import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/**
 * Runs `command` in `scratch`, a checkout of `treeish` from the repository at `dir`, with a
 * timeout; resolves with whether it passed and the tail of its output.
 */
export async function runCheckIn(
  dir: string,
  scratch: string,
  treeish: string,
  command: string,
  timeoutMs: number,
): Promise<{ ok: boolean; output: string }> {
  await execFileAsync('sh', [
    '-c',
    `git -C "$1" archive --format=tar "$2" | tar -x -C "$3"`,
    'sh',
    dir,
    treeish,
    scratch,
  ]);
  const result = await execFileAsync('sh', ['-c', command], {
    cwd: scratch,
    timeout: timeoutMs,
    maxBuffer: 4 * 1024 * 1024,
  })
    .then((r) => ({ ok: true, output: r.stdout + r.stderr }))
    .catch((error: { stdout?: string; stderr?: string; killed?: boolean }) => ({
      ok: false,
      output: `${error.killed === true ? `timed out after ${timeoutMs} ms\n` : ''}${error.stdout ?? ''}${error.stderr ?? ''}`,
    }));
  return { ok: result.ok, output: result.output.slice(-2000) };
}
