import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CLI = join(process.cwd(), 'dist', 'maker.js');

function maker(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '' } },
      (error, stdout, stderr) =>
        resolve({
          code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1,
          stdout,
          stderr,
        }),
    );
  });
}

describe('maker bench github', () => {
  it('publishes node branches in batched pushes against the fake GitHub in its own process', async () => {
    const result = await maker([
      'bench',
      'github',
      '--branches',
      '7',
      '--batch',
      '3',
      '--repeats',
      '1',
      '--json',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    // main, then 3 + 3 + 1 branches created, then the same moved: 7 batches, one push each.
    expect(report).toMatchObject({
      branches: 7,
      batches: 7,
      branchMoves: 15,
      pushProcesses: 7,
      pushProcessesPerBatch: 1,
      merged: true,
    });
    expect(report['gitProcessesPerBranch']).toBe(1);
    expect(report['restRequestsPerBranchMove']).toBeLessThanOrEqual(1);
    expect(report['restByRoute']).toMatchObject({
      'POST /user/repos': 1,
      'POST /repos/{o}/{r}/pulls': 1,
      'PUT /repos/{o}/{r}/pulls/{n}/merge': 1,
    });
  });

  it('is listed among the benchmarks', async () => {
    const result = await maker(['bench', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ {2}github .*fake GitHub/m);
  });
});
