import { describe, expect, it } from 'vitest';
import { maker } from '../helpers/cli.js';

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
