import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { currentProcess, processIdentity } from '../os/process-identity.js';

const execFileAsync = promisify(execFile);

/**
 * A fresh scratch directory under `root`, named after this process (`<kind>-<pid>-<start>-…`), so
 * one left behind by a killed process is recognised — its owner is gone — and swept later.
 */
export async function scratchDir(root: string, kind: string): Promise<string> {
  await mkdir(root, { recursive: true });
  const { pid, startTime } = currentProcess();
  return mkdtemp(join(root, `maker-${kind}-${pid}-${startTime ?? '0'}-`));
}

/**
 * Removes the scratch directories under `root` whose process is gone (a SIGKILL leaves them). One
 * that cannot be removed is left, never an error: it must not keep a workspace from opening.
 */
export async function sweepScratch(root: string): Promise<void> {
  const entries = await readdir(root).catch(() => []);
  for (const name of entries) {
    const match = /^maker-[a-z]+-(\d+)-([^-]+)-/.exec(name);
    if (match === null) continue;
    const owner = processIdentity(Number(match[1]));
    if (owner === undefined || (match[2] !== '0' && owner.startTime !== match[2]))
      await removeTree(join(root, name)).catch(() => undefined);
  }
}

/**
 * Removes `dir` and everything in it, also what a check may have left to resist it: directories
 * nested deeper than a path can name (Node's `rm` fails with ENAMETOOLONG) or made read-only.
 */
export async function removeTree(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true });
  } catch {
    // Programs started directly (no shell); chmod's complaints (a link it cannot follow) ignored.
    await execFileAsync('chmod', ['-R', 'u+rwx', '--', dir]).catch(() => undefined);
    await execFileAsync('rm', ['-rf', '--', dir]);
  }
}

let memoryRoot: Promise<string> | undefined;

/**
 * Where short-lived scratch files go: `/dev/shm` (memory, no disk writes to flush) where it is a
 * writable directory, else the system's temporary directory.
 */
export function memoryScratchRoot(): Promise<string> {
  memoryRoot ??= access('/dev/shm', constants.W_OK | constants.X_OK).then(
    () => '/dev/shm',
    () => tmpdir(),
  );
  return memoryRoot;
}
