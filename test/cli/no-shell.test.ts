import { spawn } from 'node:child_process';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { maker, type MakerResult } from '../helpers/cli.js';
import { text } from '../helpers/mcp.js';
import { useTempDirs } from '../helpers/tmp.js';

/**
 * MAKER never runs a person's shell start-up files, and needs no shell to run git. A home whose
 * every start-up file (and BASH_ENV, ENV) appends to a canary file, and a `bash` first on PATH that
 * does the same: after runs, a resume, a demo, benchmarks and MCP tool calls, the canary is absent.
 */
const tempDir = useTempDirs();

const STARTUP_FILES = ['.bashrc', '.bash_profile', '.bash_login', '.profile', '.zshenv', '.zshrc'];

async function canaryHome(): Promise<{ env: Record<string, string>; canary: string }> {
  const root = await tempDir();
  const home = join(root, 'home');
  const bin = join(root, 'bin');
  const canary = join(root, 'canary');
  await mkdir(home);
  await mkdir(bin);
  for (const file of STARTUP_FILES)
    await writeFile(join(home, file), `echo "${file} read by $0" >> '${canary}'\n`);
  // A bash started as a shell (`bash -c …`, options, or no script) is recorded. One started as the
  // interpreter of a program's script (`#!/usr/bin/env bash`, as pyenv's python3 shim is) runs that
  // program, not a shell for MAKER: its start-up files are still caught by the lines above.
  await writeFile(
    join(bin, 'bash'),
    `#!/bin/sh\ncase "$1" in -*|'') echo "bash started: $*" >> '${canary}' ;; esac\nexec /bin/bash "$@"\n`,
  );
  await chmod(join(bin, 'bash'), 0o755);
  return {
    canary,
    env: {
      HOME: home,
      PATH: `${bin}:${process.env['PATH'] ?? ''}`,
      BASH_ENV: join(home, '.bashrc'),
      ENV: join(home, '.profile'),
    },
  };
}

const read = (file: string) => readFile(file, 'utf8').catch(() => '');

function ok(result: MakerResult, what: string): void {
  expect(result.code, `${what}: ${result.stderr}`).toBe(0);
}

describe('no shell, no start-up files', () => {
  it('the canary works: a bash started from Node with that home reads them', async () => {
    const { env, canary } = await canaryHome();
    await new Promise<void>((resolve, reject) => {
      const child = spawn('bash', ['-c', 'true'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
      child.on('error', reject);
      child.on('close', () => resolve());
      child.stdin.end();
    });
    expect(await read(canary)).toMatch(/bash started/);
    expect(await read(canary)).toMatch(/\.bashrc read by/);
  });

  it('maker run, resume, demo and the benchmarks never create the canary', async () => {
    const { env, canary } = await canaryHome();
    const root = await tempDir();
    // The run (killed, then resumed) runs its checks in the sandbox, on a tree of one level; the
    // demo then runs none (no sandbox: the checks' processes are the run's), but its GitHub: seed
    // 35's small tree (5 nodes) makes every kind of push, pull request and merge that seed 1's does.
    ok(
      await maker(
        [
          'run',
          'a csv tool',
          '--worker',
          'sim',
          '--max-depth',
          '1',
          '--hitl',
          'auto',
          '--dir',
          join(root, 'run'),
          '--json',
        ],
        { ...env, MAKER_CRASH_AT: 'state:log-appended@10' },
      ).then((r) => ({ ...r, code: r.signal === 'SIGKILL' ? 0 : r.code })),
      'run (killed)',
    );
    ok(await maker(['resume', '--dir', join(root, 'run'), '--json'], env), 'resume');
    ok(
      await maker(['demo', '--seed', '35', '--dir', join(root, 'demo'), '--json'], {
        ...env,
        MAKER_SANDBOX: 'none',
      }),
      'demo',
    );
    ok(
      await maker(
        ['bench', 'tree', '--leaves', '8', '--workspace', 'git', '--state-nodes', '10', '--json'],
        env,
      ),
      'bench tree',
    );
    ok(await maker(['bench', 'hanoi', '--disks', '3', '--json'], env), 'bench hanoi');
    expect(await read(canary)).toBe('');
  }, 300_000);

  it('the MCP server, through its tools, never creates the canary', async () => {
    const { env, canary } = await canaryHome();
    const dir = await tempDir();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(process.cwd(), 'dist', 'maker-mcp.js')],
      cwd: dir,
      env: { ...env, MAKER_WORKSPACE: dir },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(transport);
    try {
      const call = async (name: string, args: Record<string, unknown>) =>
        text((await client.callTool({ name, arguments: args })) as CallToolResult);
      await call('maker_start', {
        idea: 'a note',
        worker: 'sim',
        runChecks: false,
        sim: { clarify: false },
      });
      // Until the run has composed its whole tree through git (then it asks its final veto).
      await expect
        .poll(() => call('maker_status', {}), { timeout: 180_000, interval: 500 })
        .toMatch(/^root \[done/m);
    } finally {
      await client.close();
    }
    expect(await read(canary)).toBe('');
  }, 240_000);
});
