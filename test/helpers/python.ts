import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, vi } from 'vitest';

/**
 * For a test file that starts `python3` many times: the interpreter `python3` resolves to is put
 * first on the PATH for the file's tests (as a link named `python3` in a directory of its own,
 * so nothing else on the PATH changes). Where `python3` is a version manager's shim (pyenv's is a
 * shell script that runs the manager to find the interpreter: about a second a start on a busy
 * machine, several times the interpreter's own), every command runs the same interpreter, started
 * directly.
 */
export function usePythonDirectly(): void {
  let dir: string | undefined;
  beforeAll(async () => {
    const { stdout } = await promisify(execFile)(
      'python3',
      ['-c', 'import sys; print(sys.executable)'],
      { timeout: 60_000 },
    );
    dir = await mkdtemp(join(tmpdir(), 'maker-python-'));
    await symlink(stdout.trim(), join(dir, 'python3'));
    vi.stubEnv('PATH', `${dir}:${process.env['PATH'] ?? ''}`);
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
}
