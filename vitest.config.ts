import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // At least two files at once: most tests wait on child processes (maker, git, sandboxes), so on a
    // 2-core machine vitest's default (cores - 1, one file at a time) leaves a core idle.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    globalSetup: ['test/global-setup.ts'],
    // Generous ceilings: waits are for events, and a machine busy with other work (see
    // scripts/under-load.mjs) must not fail a test that would pass on an idle one.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    expect: { poll: { timeout: 30_000 } },
  },
});
