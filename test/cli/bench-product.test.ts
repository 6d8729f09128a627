import { describe, expect, it } from 'vitest';
import { main } from '../../src/surfaces/cli/main.js';
import type { CliIo } from '../../src/surfaces/cli/io.js';
import type { ProductBenchReport, VoteShares } from '../../src/surfaces/bench/product-bench.js';
import { table } from '../../src/surfaces/cli/commands/bench-product-run.js';

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    stderrIsTty: false,
    stdinIsTty: false,
    cwd: process.cwd(),
    env: {},
  };
  const code = await main(args, io);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

const settled = (v: VoteShares) => v.agreement + v.ballots + v.chosen + v.undecided;

describe('maker bench product', () => {
  it('--quick runs two ideas through MAKER and the single shot, and computes its figures', async () => {
    const { code, stdout, stderr } = await cli(['bench', 'product', '--quick', '--json']);
    expect(stderr).toMatch(/maker: \S+ seed 1 maker: (PASS|fail)/);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as ProductBenchReport;
    expect(report.ideas).toHaveLength(2);
    expect(report.knobs).toEqual({
      p: 0.8,
      slip: 0.1,
      judgeAccuracy: 0.9,
      seed: 1,
      runs: 1,
      editFormat: 'json',
    });
    expect(report.runs).toHaveLength(4);
    for (const run of report.runs) {
      expect(run.modelCalls).toBeGreaterThan(0);
      expect(run.tokens).toBeGreaterThan(0);
      expect(run.wallMs).toBeGreaterThanOrEqual(0);
      // A landed tree had its hidden tests run; a pass means every one of them passed.
      if (run.landed) expect(run.hidden.tests).toBeGreaterThan(0);
      if (run.hidden.passed) expect(run.hidden.failed).toBe(0);
      expect(run.fake.unmatched).toBe(0);
    }
    for (const [arm, totals] of [
      ['maker', report.maker],
      ['single', report.single],
    ] as const) {
      const runs = report.runs.filter((r) => r.arm === arm);
      expect(totals.runs).toBe(runs.length);
      expect(totals.passed).toBe(runs.filter((r) => r.hidden.passed).length);
      expect(totals.passed).toBeLessThanOrEqual(totals.runs);
      expect(totals.passRate).toBeCloseTo(totals.passed / totals.runs, 3);
      expect(totals.modelCalls).toBe(runs.reduce((s, r) => s + r.modelCalls, 0));
      expect(totals.tokens).toBe(runs.reduce((s, r) => s + r.tokens, 0));
    }
    // MAKER votes and samples; the single shot asks once per decision.
    expect(report.maker.modelCalls).toBeGreaterThan(report.single.modelCalls);
    expect(report.runs.filter((r) => r.arm === 'maker').every((r) => r.status === 'done')).toBe(
      true,
    );
    const leaves = report.maker.leafVotes;
    expect(leaves.votes).toBeGreaterThanOrEqual(4);
    expect(settled(leaves)).toBe(leaves.votes);
    expect(settled(report.maker.splitVotes)).toBe(report.maker.splitVotes.votes);
    const decided = leaves.agreement + leaves.ballots;
    expect(report.maker.agreementShare).toBe(
      decided === 0 ? null : Math.round((leaves.agreement / decided) * 1000) / 1000,
    );
    expect(report.ratio).toBe(
      report.single.passRate === 0
        ? null
        : Math.round((report.maker.passRate / report.single.passRate) * 1000) / 1000,
    );
    // The fake counted the code samples it wrote.
    const samples = Object.values(report.maker.codeSamples).reduce((s, n) => s + n, 0);
    expect(samples).toBeGreaterThanOrEqual(4);
    // Every call that reached the model is counted under what it asked, and code samples as workers.
    const byRole = report.maker.callsByRole;
    expect(Object.values(byRole).reduce((s, n) => s + n, 0)).toBe(report.maker.modelCalls);
    expect(byRole['worker']).toBeGreaterThanOrEqual(samples);
    expect(byRole['split']).toBeGreaterThan(0);
    // The table says the same.
    const text = table(report);
    expect(text).toContain('SIMULATED');
    expect(text).toMatch(new RegExp(`all +MAKER +${report.maker.passed}/${report.maker.runs} `));
    expect(text).toContain(`MAKER leaf votes: ${leaves.votes}: ${leaves.agreement} by agreement`);
    expect(text).toContain(`MAKER's model calls by what they asked: minimal ${byRole['minimal']}`);
    // Two real runs with sandboxed checks: 120 s was reached on a machine loaded by other work.
  }, 300_000);

  it('--edit-format fenced has the worker ask for fenced blocks, which the fake answers', async () => {
    const { code, stdout } = await cli([
      'bench',
      'product',
      '--ideas',
      'text-stats',
      '--runs',
      '1',
      '--edit-format',
      'fenced',
      '--json',
    ]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as ProductBenchReport;
    expect(report.knobs.editFormat).toBe('fenced');
    expect(report.runs.map((r) => [r.arm, r.status])).toEqual([
      ['maker', 'done'],
      ['single', 'built'],
    ]);
    // Its slips are the fenced format's: none over-escaped.
    expect(Object.keys(report.maker.codeSamples).filter((k) => k.includes('escaped'))).toEqual([]);
    expect(table(report)).toContain('edit format fenced');
  }, 120_000);

  it('refuses an unknown idea, naming the built-in ones, before running anything', async () => {
    const { code, stderr } = await cli(['bench', 'product', '--ideas', 'csv-to-json,nope']);
    expect(code).toBe(2);
    expect(stderr).toContain('Unknown idea nope');
    expect(stderr).toContain('csv-to-json, expr-eval, text-stats, todo-api');
  });
});
