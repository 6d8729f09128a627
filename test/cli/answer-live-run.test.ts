import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { maker } from '../helpers/cli.js';
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
});
