import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MakerError } from '../../src/core/errors.js';
import { OfflineError } from '../../src/offline/errors.js';
import { fakeGitHubStore } from '../../src/offline/fake-github-store.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

describe("the offline world's own failures", () => {
  it('are typed MakerErrors that name the file and say what to do, not plain errors', async () => {
    const dir = await tempDir();
    const torn = join(dir, 'torn.json');
    writeFileSync(torn, '{"repos": [');
    const foreign = join(dir, 'foreign.json');
    writeFileSync(foreign, '{"hello": "world"}');
    for (const [path, said] of [
      [torn, /is not JSON: remove it to start empty/],
      [foreign, /is not a stored world/],
    ] as const) {
      let caught: unknown;
      try {
        fakeGitHubStore(path).load();
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(OfflineError);
      expect(caught).toBeInstanceOf(MakerError);
      expect((caught as OfflineError).code).toBe('offline');
      expect((caught as Error).message).toContain(path);
      expect((caught as Error).message).toMatch(said);
    }
  });
});
