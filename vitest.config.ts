import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // At least two files at once: most tests wait on child processes (maker, git, sandboxes), so on a
    // 2-core machine vitest's default (cores - 1, one file at a time) leaves a core idle.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Files share their worker's process one after another, instead of each starting its own and
    // importing the sources again: that import was about a tenth of the suite's CPU time. Tests
    // therefore leave no process-wide state behind (environment, working directory, timers), which
    // they must anyway: each restores what it changes (vi.stubEnv/unstubAllEnvs, finally blocks).
    isolate: false,
    globalSetup: ['test/global-setup.ts'],
    // Generous ceilings: waits are for events, and a machine busy with other work (see
    // scripts/under-load.mjs) must not fail a test that would pass on an idle one.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    expect: { poll: { timeout: 30_000 } },
  },
});
