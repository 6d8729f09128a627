import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';

/** A fresh temp directory per call, removed after the test that made it. */
export function useTempDirs(): () => Promise<string> {
  return tempDirsRemovedBy(afterEach);
}

/**
 * A fresh temp directory per call, removed after the file's last test: for one run that several
 * tests read (made once, by whichever needs it first).
 */
export function useSharedTempDirs(): () => Promise<string> {
  return tempDirsRemovedBy(afterAll);
}

function tempDirsRemovedBy(hook: typeof afterEach | typeof afterAll): () => Promise<string> {
  const made: string[] = [];
  hook(async () => {
    await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), 'maker-test-'));
    made.push(dir);
    return dir;
  };
}
