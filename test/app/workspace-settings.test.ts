import { describe, expect, it } from 'vitest';
import { GitWorkspace } from '../../src/adapters/git/git-workspace.js';
import { SimPlanner, SimWorker } from '../../src/adapters/sim/project-sim.js';
import { readSettings } from '../../src/app/settings.js';
import { engineFor, openWorkspace, runConfig } from '../../src/app/wiring/wiring.js';
import { main } from '../../src/surfaces/cli/main.js';
import type { CliIo } from '../../src/surfaces/cli/io.js';
import { initCommitted } from '../helpers/repo.js';
import { useTempDirs } from '../helpers/tmp.js';
import { machineSandbox } from '../helpers/settings.js';

/**
 * The environment is read once, at the edge, into settings; a workspace and an engine take what
 * they need of it from those settings, not from the process's environment behind them.
 */
const tempDir = useTempDirs();

async function committedRepo(): Promise<string> {
  return initCommitted(await tempDir());
}

/** `main` with `env` as its whole environment; resolves with its exit status and what it said. */
async function mainIn(dir: string, args: string[], env: Record<string, string>) {
  const out: string[] = [];
  const io: CliIo = {
    stdout: (t) => void out.push(t),
    stderr: (t) => void out.push(t),
    stderrIsTty: false,
    stdinIsTty: false,
    cwd: dir,
    env,
  };
  const code = await main(args, io);
  return { code, output: out.join('') };
}

const sandbox = await machineSandbox();

describe('settings, not the process environment', () => {
  it("a workspace's checks look for their sandbox where the settings say (MAKER_SANDBOX=none given to main)", async () => {
    expect(process.env['MAKER_SANDBOX'] ?? '').toBe('');
    const dir = await committedRepo();
    const env = { PATH: process.env['PATH'] ?? '', MAKER_SANDBOX: 'none' };
    const { code, output } = await mainIn(dir, ['sandbox', 'true', '--dir', dir], env);
    expect(code).not.toBe(0);
    expect(output).toContain('MAKER_SANDBOX is "none"');
  });

  // Proves: the tests' seams are settings too: MAKER_TEST_CHECK_MEMORY_MIB given to main (not to
  // the process behind it) lowers the memory limit of the check `maker sandbox` runs.
  it.skipIf(sandbox === undefined)(
    "a check's lowered memory limit comes from the settings main was given",
    async () => {
      expect(process.env['MAKER_TEST_CHECK_MEMORY_MIB']).toBeUndefined();
      const dir = await committedRepo();
      const allocate = `"${process.execPath}" -e "const a = []; for (let i = 0; i < 4; i++) a.push(Buffer.alloc(64 * 1024 * 1024, 1)); console.log('allocated')"`;
      const env = { PATH: process.env['PATH'] ?? '' };
      const free = await mainIn(dir, ['sandbox', allocate, '--dir', dir], env);
      expect(free.output).toContain('allocated');
      const low = { ...env, MAKER_TEST_CHECK_MEMORY_MIB: '64' };
      const limited = await mainIn(dir, ['sandbox', allocate, '--dir', dir], low);
      expect(limited.code).not.toBe(0);
      expect(limited.output).not.toContain('allocated');
      expect(readSettings(low).checkMemoryMiB).toBe(64);
    },
  );

  // Proves: the runtimes a workspace says its checks have are those on the PATH of the environment
  // it was given (where its checks' view finds toolchains), not on the PATH of the process.
  it.skipIf(sandbox === undefined)(
    "a workspace's check runtimes are those on the PATH of its environment",
    async () => {
      const dir = await committedRepo();
      const bare = await tempDir(); // a PATH with no runtime on it
      const workspace = await GitWorkspace.open(dir, {
        sandbox: () => Promise.resolve(sandbox),
        env: { PATH: bare },
      });
      try {
        expect((await workspace.checkEnvironment())?.runtimes).toEqual([]);
      } finally {
        await workspace.close();
      }
    },
  );

  it("a workspace's and an engine's steps are the settings' one checkpoint", async () => {
    const dir = await committedRepo();
    const steps: string[] = [];
    const settings = { ...readSettings({}), seam: (step: string) => void steps.push(step) };
    const workspace = await openWorkspace(dir, false, settings);
    try {
      const sim = { seed: 3 };
      const roles = { planner: new SimPlanner(sim), worker: new SimWorker(sim) };
      const engine = engineFor(dir, workspace, roles, settings);
      const config = runConfig({
        worker: 'sim',
        hitl: 'auto',
        runChecks: false,
        defaultBranch: 'main',
      });
      const runId = await engine.create('a note', config);
      await engine.run(runId);
    } finally {
      await workspace.close();
    }
    expect(steps).toContain('state:snapshot-written'); // the engine's state file
    expect(steps).toContain('land:update-ref'); // the workspace's landing
  });
});
