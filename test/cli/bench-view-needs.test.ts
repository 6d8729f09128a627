import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { runViewBench } from '../../src/surfaces/bench/view-bench.js';
import { chromiumInstalled } from '../../src/offline/chromium.js';

const benchDirs = async () =>
  (await readdir(tmpdir())).filter((name) => name.startsWith('maker-bench-view-'));

/**
 * Installed from the package, `maker bench view` has no playwright-core: it must say so before it
 * builds a run or starts a server (which kept the process alive, deaf to Ctrl-C; issue 28, item 1).
 */
describe('maker bench view without playwright-core', () => {
  it.skipIf(!chromiumInstalled())('refuses before it builds a run or starts a server', async () => {
    const before = await benchDirs();
    let loaded = 0;
    const missing = Object.assign(new Error("Cannot find package 'playwright-core'"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    const refused = await runViewBench({
      leaves: 5,
      loads: 1,
      loadPlaywright: () => {
        loaded++;
        return Promise.reject(missing);
      },
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as Error).message).toMatch(/playwright-core, a development dependency/);
    expect(loaded).toBe(1);
    expect(await benchDirs()).toEqual(before);
  });
});
