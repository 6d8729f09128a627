import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/tmp.js';
import { text, useMcpClients } from '../helpers/mcp.js';
import { machineSandbox } from '../helpers/settings.js';

const tempDir = useTempDirs();
const connect = useMcpClients();
const sandbox = await machineSandbox();

describe('maker_start: the overall check and the candidate allowances', () => {
  it('refuses unsafe allowance globs, naming each, and creates nothing', async () => {
    const dir = await tempDir();
    const { call } = await connect(dir, { PATH: process.env['PATH'] ?? '' });
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
    const { call } = await connect(dir, { PATH: process.env['PATH'] ?? '' });
    const started = await call('maker_start', {
      idea: 'a notes app',
      worker: 'sim',
      check: 'test -d src',
      runChecks: true,
      install: 'npm ci',
      allow: { executables: ['bin/*'], workflows: true, installFiles: true },
      maxFileKb: 64,
    });
    expect(started.isError, text(started)).toBeFalsy();
    const state = JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')) as {
      runs: Record<
        string,
        {
          config: { allow: unknown; maxFileBytes: number; runChecks: boolean; install?: string };
          nodes: { root: { check?: string } };
        }
      >;
    };
    const run = Object.values(state.runs)[0];
    expect(run?.config).toMatchObject({
      allow: { executables: ['bin/*'], symlinks: [], workflows: true, installFiles: true },
      maxFileBytes: 64 * 1024,
      runChecks: true,
      install: 'npm ci',
    });
    expect(run?.nodes.root.check).toBe('test -d src');
  });
});
