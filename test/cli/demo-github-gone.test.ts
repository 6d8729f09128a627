import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const CLI = join(process.cwd(), 'dist', 'maker.js');

function maker(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal, stderr }));
  });
}

describe('a killed demo whose own fake GitHub ended with it', () => {
  it('is refused on resume with what happened and the way to a resumable demo; the state is left as it was', async () => {
    const dir = await tempDir();
    const killed = await maker(['demo', '--dir', dir], { MAKER_CRASH_AT: 'github:pr-saved' });
    expect(killed.signal).toBe('SIGKILL');
    const state = join(dir, 'maker-state.json');
    const before = await readFile(state);
    const resumed = await maker(['resume', '--dir', dir]);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(
      /a local fake GitHub at http:\/\/127\.0\.0\.1:\d+, which is not running/,
    );
    expect(resumed.stderr).toMatch(/maker fake-github --port 8765/);
    expect(resumed.stderr).not.toMatch(/GITHUB_TOKEN is not set/);
    expect(await readFile(state)).toEqual(before);
  }, 120_000);
});
