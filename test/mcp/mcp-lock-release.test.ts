import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkspaceLock } from '../../src/adapters/state/lock.js';
import { maker } from '../helpers/cli.js';
import { text, waitToEnd } from '../helpers/mcp.js';
import { useTempDirs } from '../helpers/tmp.js';

/**
 * The bundled MCP server (as Gemini CLI runs it) holds a workspace's lock only while a run of its
 * own goes on there: a `maker_status` never takes it, and once a run it resumed ends or stops, a
 * `maker` in a terminal works on the same workspace while the server is still up.
 */
const tempDir = useTempDirs();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const START = { idea: 'a tool', worker: 'sim', runChecks: false, sim: { seed: 7, clarify: false } };
const lockOf = (dir: string) => join(dir, 'maker-state.json.lock');

async function server(dir: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(process.cwd(), 'dist', 'maker-mcp.js')],
    cwd: dir,
    env: { PATH: process.env['PATH'] ?? '', HOME: dir, MAKER_WORKSPACE: dir },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(transport);
  closers.push(() => client.close());
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  return Object.assign(call, { close: () => client.close() });
}

describe('the MCP server and the workspace lock', () => {
  it('lets go of the workspace once a run it drove stops or ends, and never locks it for maker_status', async () => {
    const dir = await tempDir();
    const call = await server(dir);
    const started = await call('maker_start', START);
    expect(started.isError, text(started)).toBeFalsy();
    const runId = (started.structuredContent as { runId: string }).runId;
    expect(existsSync(lockOf(dir))).toBe(true);

    // Stopped with maker_cancel: nothing of the server's runs there any more.
    expect(text(await call('maker_cancel', { runId }))).toContain('cancelled');
    expect(existsSync(lockOf(dir))).toBe(false);

    // A status (the person asks Gemini CLI how it went) does not take the lock.
    expect(text(await call('maker_status', { runId }))).toMatch(/: cancelled\./);
    expect(existsSync(lockOf(dir))).toBe(false);

    // maker_resume drives it again (holding the lock); the person answers the final veto and it ends.
    const resumed = await call('maker_resume', { runId });
    expect(resumed.isError, text(resumed)).toBeFalsy();
    expect(await waitToEnd(call, runId)).toMatch(/: done\./);
    // The run's end is saved, then its workspace closed: the lock goes once nothing of the server's runs.
    await expect
      .poll(() => existsSync(lockOf(dir)), {
        message: 'the server kept the lock after its run ended',
      })
      .toBe(false);

    // With Gemini CLI (the server) still open, the terminal works on the same workspace.
    const status = await maker(['status', '--dir', dir, '--run', runId]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`Run ${runId} — done`);
    const other = new WorkspaceLock(lockOf(dir), { command: 'test' });
    await other.acquire();
    await other.release();
    expect(text(await call('maker_status', {}))).toMatch(/: done\./);
    expect(existsSync(lockOf(dir))).toBe(false);
  }, 240_000);

  it('a maker resume in a terminal continues a run the server only looked at', async () => {
    const dir = await tempDir();
    const first = await server(dir);
    const runId = ((await first('maker_start', START)).structuredContent as { runId: string })
      .runId;
    expect(text(await first('maker_cancel', { runId }))).toContain('cancelled');
    // A second Gemini CLI session over the same workspace asks how it went.
    const second = await server(dir);
    expect(text(await second('maker_status', {}))).toMatch(/: cancelled\./);
    const resumed = await maker(['resume', '--dir', dir, '--hitl', 'auto']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(text(await second('maker_status', { runId }))).toMatch(/: done\./);
  }, 240_000);

  it('maker_status reads a run while another process holds the workspace', async () => {
    const dir = await tempDir();
    const first = await server(dir);
    const started = await first('maker_start', START);
    expect(started.isError, text(started)).toBeFalsy();
    const runId = (started.structuredContent as { runId: string }).runId;
    expect(text(await first('maker_cancel', { runId }))).toContain('cancelled');
    await first.close();
    // Another live process (this test's parent) holds the workspace, as a `maker run` would.
    await writeFile(lockOf(dir), `${process.ppid}\n`);
    const call = await server(dir);
    const status = await call('maker_status', { runId });
    expect(status.isError, text(status)).toBeFalsy();
    expect(text(status)).toMatch(/: cancelled\./);
    // Resuming it here is refused, naming the holder; its lock is left as it was.
    const refused = await call('maker_resume', { runId });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/Another maker process \(pid \d+\) is working on this workspace/);
    expect(existsSync(lockOf(dir))).toBe(true);
  }, 240_000);
});
