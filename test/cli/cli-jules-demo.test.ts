import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import type { Run } from '../../src/core/tree/schema.js';
import { maker } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

/** The Jules protocol without a Jules account: `maker bench jules` and `maker demo --worker jules-fake`. */
const tempDir = useTempDirs();
/** The Jules protocol is tested here, not the checks: the demos run without a sandbox (unverified). */
const NO_SANDBOX = { MAKER_SANDBOX: 'none' };
/**
 * The simulated planner's seed: 6 plans a smaller tree than the default (about 37 sessions, not
 * 45): the size of the demo's run is not what these tests prove.
 */
const SEED = ['--seed', '6'];
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();

describe('the fake Jules from the CLI', () => {
  it('maker bench jules reports wall time against the ideal and requests per session', async () => {
    const result = await maker([
      'bench',
      'jules',
      '--leaves',
      '2',
      '--candidates',
      '2',
      '--work-ms',
      '30',
      '--repeats',
      '1',
      '--warmup',
      '1',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({ sessions: 4, idealMs: 30, candidatesValid: true });
    expect(report['ratio']).toBeGreaterThanOrEqual(1);
    // the warm-up trial ran first, apart from the median
    const warmup = report['warmup'] as { trials: number; wallMs: number[] };
    expect(warmup.trials).toBe(1);
    expect(warmup.wallMs).toHaveLength(1);
    expect(warmup.wallMs[0]).toBeGreaterThanOrEqual(30);
    // a create and at least one poll (and a share of the one source read)
    expect(report['requestsPerSession']).toBeGreaterThanOrEqual(2);
    expect(report['requestsPerSession']).toBeLessThanOrEqual(10);
    // where the time went: request latencies and lags from the worker's side, CPU on both sides
    const timeline = report['timeline'] as Record<string, { median: unknown; max: unknown }>;
    for (const measure of ['createMs', 'pollMs', 'lagMs'])
      expect(typeof timeline[measure]?.median, measure).toBe('number');
    expect(typeof (report['cpuMs'] as { worker: unknown }).worker).toBe('number');
  });

  it('maker demo --worker jules-fake --local-only sends every candidate through the Jules protocol, offline', async () => {
    const dir = await tempDir();
    const result = await maker(
      ['demo', '--worker', 'jules-fake', '--local-only', '--dir', dir, '--json', ...SEED],
      NO_SANDBOX,
    );
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as {
      status: string;
      simulated: boolean;
      sessions: number;
      leaves: number;
    };
    expect(summary.status).toBe('done');
    expect(summary).toMatchObject({ simulated: true, worker: 'jules-fake' });
    expect(summary.sessions).toBeGreaterThanOrEqual(3 * summary.leaves);
    const run = Object.values((await makerStateFile(dir).load()).runs)[0] as Run;
    expect(run.config.worker).toBe('jules-fake');
    // The leaves' branches went to the demo's local origin, as they would go to GitHub.
    const origin = git(dir, 'remote', 'get-url', 'origin');
    const leaf = Object.values(run.nodes).find((n) => n.kind === 'leaf');
    expect(
      git(dir, '--git-dir', origin, 'rev-parse', `refs/heads/maker/${run.id}/n-${leaf?.id}`),
    ).toBe(leaf?.baseCommit);
    expect(git(dir, 'log', '-1', '--format=%B', `maker/${run.id}/n-${leaf?.id}`)).toMatch(
      /Maker-Worker: jules session \d+/,
    );
  }, 120_000);

  it('maker demo --worker jules-fake uses one local fake GitHub for both: the fake Jules reads its repository, the PR is merged', async () => {
    const dir = await tempDir();
    const result = await maker(
      ['demo', '--worker', 'jules-fake', '--dir', dir, '--json', ...SEED],
      NO_SANDBOX,
    );
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as {
      status: string;
      sessions: number;
      leaves: number;
      repository: string;
      pullRequest: { state: string };
    };
    expect(summary.status).toBe('done');
    expect(summary.sessions).toBeGreaterThanOrEqual(3 * summary.leaves);
    expect(summary.repository).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/maker-demo\//);
    expect(summary.pullRequest.state).toBe('merged');
  }, 120_000);
});
