import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { findSandbox } from '../../src/adapters/sandbox/bwrap.js';
import { RunManager } from '../../src/surfaces/mcp/run-manager.js';
import { createMakerServer } from '../../src/surfaces/mcp/server.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
const sandbox = await findSandbox();

async function connect(dir: string) {
  const runs = new RunManager({ workspaceDir: dir, env: { PATH: process.env['PATH'] ?? '' } });
  const server = createMakerServer(runs, '0.0.0-test');
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test', version: '1' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  closers.push(async () => {
    await client.close();
    await runs.close();
  });
  return async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
}

const text = (r: CallToolResult) =>
  r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe('maker_start: the overall check and the candidate allowances', () => {
  it('refuses unsafe allowance globs, naming each, and creates nothing', async () => {
    const dir = await tempDir();
    const call = await connect(dir);
    const refused = await call('maker_start', {
      idea: 'x',
      worker: 'sim',
      allow: { executables: ['/bin/sh'], symlinks: ['../up'] },
    });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/allow\.executables "\/bin\/sh": an absolute path/);
    expect(text(refused)).toMatch(/allow\.symlinks "\.\.\/up": a path that climbs out/);
    expect(await readdir(dir)).toEqual([]);
  });

  it.runIf(sandbox !== undefined)('keeps them in the run it starts', async () => {
    const dir = await tempDir();
    const call = await connect(dir);
    const started = await call('maker_start', {
      idea: 'a notes app',
      worker: 'sim',
      check: 'test -d src',
      runChecks: true,
      allow: { executables: ['bin/*'], workflows: true },
      maxFileKb: 64,
    });
    expect(started.isError, text(started)).toBeFalsy();
    const state = JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')) as {
      runs: Record<
        string,
        {
          config: { allow: unknown; maxFileBytes: number; runChecks: boolean };
          nodes: { root: { check?: string } };
        }
      >;
    };
    const run = Object.values(state.runs)[0];
    expect(run?.config).toMatchObject({
      allow: { executables: ['bin/*'], symlinks: [], workflows: true },
      maxFileBytes: 64 * 1024,
      runChecks: true,
    });
    expect(run?.nodes.root.check).toBe('test -d src');
  });
});
