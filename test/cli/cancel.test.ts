import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import type { Run } from '../../src/core/tree/schema.js';
import { RunManager } from '../../src/surfaces/mcp/run-manager.js';
import { runResult } from '../../src/surfaces/mcp/run-result.js';
import { textOf } from '../../src/surfaces/mcp/tools/tool.js';
import { maker, simRun, spawnMaker, type MakerProcess } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** The run saved in `dir` (the only one), once it is saved as `status`. */
async function savedRun(dir: string, status: Run['status']): Promise<Run> {
  let run: Run | undefined;
  await expect
    .poll(async () => {
      const state = await makerStateFile(dir)
        .load()
        .catch(() => undefined);
      run = state === undefined ? undefined : Object.values(state.runs)[0];
      return run?.status;
    })
    .toBe(status);
  return run!;
}

/**
 * A terminal's `maker run` that keeps running: its overall check sleeps (sandboxed), so the run is
 * saved as running while its process drives it.
 */
async function runningRun(): Promise<{ dir: string; process: MakerProcess; run: Run }> {
  const dir = await tempDir();
  const process = spawnMaker([
    'run',
    'a note',
    '--dir',
    dir,
    '--worker',
    'sim',
    '--hitl',
    'auto',
    '--max-depth',
    '0',
    '--check',
    'sleep 600',
  ]);
  const run = await savedRun(dir, 'running');
  return { dir, process, run };
}

/** A run saved as running whose process was killed (SIGKILL) at its landing: nothing drives it. */
async function killedRun(): Promise<{ dir: string; run: Run }> {
  const dir = await tempDir();
  const killed = await simRun(dir, ['--no-checks'], { MAKER_CRASH_AT: 'land:intent-saved' });
  expect(killed.signal).toBe('SIGKILL');
  return { dir, run: await savedRun(dir, 'running') };
}

describe('maker cancel', () => {
  it('stops the run a terminal drives: SIGINT, the run saved as cancelled, the lock released', async () => {
    // Proves: cancel reaches the process that drives the run, waits for it to save the run as
    // cancelled and let go of the workspace, and says so; the run's own process ends as a Ctrl-C.
    const { dir, process, run } = await runningRun();
    const cancel = await maker(['cancel', '--dir', dir, '--json']);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(JSON.parse(cancel.stdout)).toEqual({
      runId: run.id,
      status: 'cancelled',
      stopped: 'signalled',
      driver: `maker run (pid ${process.pid})`,
    });
    const ended = await process.ended;
    expect(ended.code).toBe(130);
    expect(ended.stdout).toMatch(/Cancelled \(interrupted\): nothing is lost/);
    expect(existsSync(join(dir, 'maker-state.json.lock'))).toBe(false);
    const again = await maker(['cancel', '--dir', dir]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`Run ${run.id} is not running \\(cancelled\\)`));
  });

  it('maker_status names the terminal that drives a run, and maker_cancel stops it there', async () => {
    // Proves: the MCP server reads where a run stands as the CLI does (the lock's live holder), so
    // it no longer tells the model to resume a run a terminal is running; and its cancel reaches it.
    const { dir, process, run } = await runningRun();
    const runs = new RunManager({ workspaceDir: dir, env: {} });
    try {
      const found = await runs.run(run.id);
      expect(found.driver?.who).toBe(`maker run, pid ${process.pid}`);
      const text = textOf(runResult(found.run, found));
      expect(text).toContain(
        `running (driven by maker run, pid ${process.pid} outside this server`,
      );
      expect(text).not.toMatch(/maker_resume/);
      const done = await runs.cancel(run.id);
      expect(done).toMatchObject({
        stopped: 'signalled',
        run: { id: run.id, status: 'cancelled' },
      });
    } finally {
      await runs.close();
    }
    expect((await process.ended).code).toBe(130);
  });

  it('a run no process drives is left as it is; one it cannot be sure of is refused, never signalled', async () => {
    const { dir, run } = await killedRun();
    const lock = join(dir, 'maker-state.json.lock');
    // Nothing drives it: nothing to cancel, and how to continue it.
    const idle = await maker(['cancel', '--dir', dir]);
    expect(idle.code).toBe(0);
    expect(idle.stdout).toMatch(/is not running: its maker process is gone/);
    expect(idle.stdout).toContain(`maker resume --dir ${dir} --run ${run.id}`);
    // Gemini CLI's server drives it (this test's process stands for it): cancelled there.
    await writeFile(lock, JSON.stringify({ pid: globalThis.process.pid, command: 'mcp' }));
    const mcp = await maker(['cancel', '--dir', dir]);
    expect(mcp.code).toBe(1);
    expect(mcp.stderr).toMatch(/cancel it there with maker_cancel/);
    // A `maker run` whose lock records no start time: its pid may be another process by now.
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      await writeFile(lock, JSON.stringify({ pid: other.pid, command: 'run' }));
      const unsure = await maker(['cancel', '--dir', dir]);
      expect(unsure.code).toBe(1);
      expect(unsure.stderr).toMatch(/cannot be made sure of: stop it at its terminal/);
      expect(other.exitCode).toBeNull();
      expect(other.signalCode).toBeNull();
    } finally {
      other.kill('SIGKILL');
    }
    expect((await makerStateFile(dir).load()).runs[run.id]?.status).toBe('running');
  });
});
