import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One file more than cores - 1, and at least three: most tests wait on child processes (maker,
    // git, sandboxes, gemini), so with two files at once a 2-core machine still used only 1.4 cores
    // (CPU 2,313 s in 1,691 s). Ten of the longest files took 475 s with three at once against 612 s
    // with two, on one machine (docs/development.md).
    maxWorkers: Math.max(3, availableParallelism()),
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
