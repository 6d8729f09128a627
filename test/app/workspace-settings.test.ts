import { describe, expect, it } from 'vitest';
import { SimPlanner, SimWorker } from '../../src/adapters/sim/project-sim.js';
import { readSettings } from '../../src/app/settings.js';
import { engineFor, openWorkspace, runConfig } from '../../src/app/wiring/wiring.js';
import { main } from '../../src/surfaces/cli/main.js';
import type { CliIo } from '../../src/surfaces/cli/io.js';
import { initCommitted } from '../helpers/repo.js';
import { useTempDirs } from '../helpers/tmp.js';

/**
 * The environment is read once, at the edge, into settings; a workspace and an engine take what
 * they need of it from those settings, not from the process's environment behind them.
 */
const tempDir = useTempDirs();

async function committedRepo(): Promise<string> {
  return initCommitted(await tempDir());
}

describe('settings, not the process environment', () => {
  it("a workspace's checks look for their sandbox where the settings say (MAKER_SANDBOX=none given to main)", async () => {
    expect(process.env['MAKER_SANDBOX'] ?? '').toBe('');
    const dir = await committedRepo();
    const err: string[] = [];
    const io: CliIo = {
      stdout: () => undefined,
      stderr: (t) => void err.push(t),
      stderrIsTty: false,
      stdinIsTty: false,
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '', MAKER_SANDBOX: 'none' },
    };
    const code = await main(['sandbox', 'true', '--dir', dir], io);
    expect(code).not.toBe(0);
    expect(err.join('')).toContain('MAKER_SANDBOX is "none"');
  });

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
