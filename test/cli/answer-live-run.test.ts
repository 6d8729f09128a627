import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunManager } from '../../src/surfaces/mcp/run-manager.js';
import { maker, simRun } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/**
 * `maker answer` while a live `maker run` drives the workspace: the run waits for exactly that
 * answer, so the message points to where the run asks, not to killing it (issue 28, item 6).
 */
describe('maker answer during a live run', () => {
  it.each([
    ['run', /answer q-root-veto at its terminal, or on its live view page/],
    ['mcp', /answer q-root-veto in Gemini CLI, where it was started/],
  ])('a workspace held by maker %s: points to where that run asks', async (command, where) => {
    const dir = await tempDir();
    // This test's own process stands for the live owner.
    await writeFile(
      join(dir, 'maker-state.json.lock'),
      JSON.stringify({ pid: process.pid, command, acquiredAt: new Date().toISOString() }),
    );
    const result = await maker(['answer', 'q-root-veto', 'accept', '--dir', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(`maker ${command} \\(pid ${process.pid}\\) is running this workspace's run`),
    );
    expect(result.stderr).toMatch(where);
    expect(result.stderr).not.toMatch(/kill \d+/);
  });

  it('a workspace held by another kind of process keeps the general message', async () => {
    const dir = await tempDir();
    await writeFile(
      join(dir, 'maker-state.json.lock'),
      JSON.stringify({ pid: process.pid, command: 'view' }),
    );
    const result = await maker(['answer', 'q-root-veto', 'accept', '--dir', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/maker view \(pid \d+\) is working on this workspace/);
  });

  it('maker_answer of a run a terminal drives: the same pointer to where that run asks', async () => {
    // Proves: the MCP server answers through the same use case as `maker answer`, so a run held by
    // a terminal's `maker run` gets the same guidance, not the lock's general refusal.
    const dir = await tempDir();
    const deferred = await simRun(dir, [
      '--max-depth',
      '0',
      '--no-checks',
      '--hitl',
      'defer',
      '--json',
    ]);
    expect(deferred.code, deferred.stderr).toBe(4); // waiting for answers
    const runId = (JSON.parse(deferred.stdout) as { runId: string }).runId;
    // A live process (not this one: the server's own pid would be its own lock) stands for the run.
    const terminal = spawn('sleep', ['60'], { stdio: 'ignore' });
    const runs = new RunManager({ workspaceDir: dir, env: {} });
    try {
      await writeFile(
        join(dir, 'maker-state.json.lock'),
        JSON.stringify({ pid: terminal.pid, command: 'run', acquiredAt: new Date().toISOString() }),
      );
      await expect(runs.answer(runId, 'q-root-veto', 'accept')).rejects.toThrow(
        new RegExp(
          `maker run \\(pid ${terminal.pid}\\) is running this workspace's run .*answer q-root-veto at its terminal`,
        ),
      );
    } finally {
      await runs.close();
      terminal.kill('SIGKILL');
    }
  });
});
