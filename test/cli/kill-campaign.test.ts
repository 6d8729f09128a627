import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeGitHub } from '../../src/testing/fake-github.js';
import { CLI, maker, type MakerResult } from '../helpers/cli.js';
import { TOKENS, useFakeGitHub } from '../helpers/github.js';
import { useTempDirs } from '../helpers/tmp.js';

/**
 * Issue #27 item 4: a kill aimed at every GitHub request of a small run (one trial per request
 * index and phase, not random times: the fake GitHub SIGKILLs the `maker run` process when its nth
 * request arrives, the request then dropped, or once it was carried out, before its answer; the
 * kills at the steps after the start's intent is saved, before its first write to GitHub, are among
 * github-e2e.test.ts's kill points). Each is followed by `maker resume` only, and ends with one repository, one merged pull request and the
 * tree of an unkilled run. Failed at main: a kill before the run's first state save (the first
 * requests) left "Nothing to resume in …: no unfinished run". A kill in the checks before the start
 * is recorded (its first requests, reads only) leaves nothing: `maker resume` says so and to run the
 * same `maker run` again, which finishes it (issue 38). Each trial's requests are numbered from 1
 * (until issue 38 they were numbered from the fake's start, so no aimed kill ever happened).
 */
const tempDir = useTempDirs();
const startFake = useFakeGitHub();
const env = (fake: FakeGitHub) => ({ GITHUB_API_URL: fake.baseUrl, GITHUB_TOKEN: TOKENS.full });
const RUN = (dir: string, name: string) => [
  'run',
  'a csv tool',
  '--dir',
  dir,
  '--worker',
  'sim',
  '--max-depth',
  '0',
  '--no-checks',
  '--hitl',
  'auto',
  '--github',
  `alice/${name}`,
  '--json',
];

/**
 * One lane of trials: its own fake GitHub (so its requests are numbered for its trial alone) and
 * the process it kills at the aimed request.
 */
interface Lane {
  fake: FakeGitHub;
  victim: number | undefined;
  aim: { n: number; phase: 'received' | 'handled' } | undefined;
}

async function startLane(): Promise<Lane> {
  const lane: Lane = {
    fake: undefined as unknown as FakeGitHub,
    victim: undefined,
    aim: undefined,
  };
  lane.fake = await startFake({
    onRequest: (n, phase) => {
      const { aim, victim } = lane;
      if (aim === undefined || victim === undefined || n !== aim.n || phase !== aim.phase) return;
      process.kill(victim, 'SIGKILL');
      return phase === 'received' ? 'drop' : undefined;
    },
  });
  return lane;
}

/** `maker <args>` whose pid the lane's fake kills at the aimed request. */
function aimed(
  lane: Lane,
  args: readonly string[],
  environment: Record<string, string>,
): Promise<MakerResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...environment },
    });
    lane.victim = child.pid;
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      lane.victim = undefined;
      resolve({ code, signal, stdout, stderr });
    });
  });
}

const tree = (fake: FakeGitHub, name: string) =>
  execFileSync(
    'git',
    ['--git-dir', join(fake.root, 'alice', `${name}.git`), 'rev-parse', 'main^{tree}'],
    { encoding: 'utf8' },
  ).trim();

async function expectFinished(fake: FakeGitHub, name: string, reference: string, what: string) {
  const repos = (await fake.state()).repos.filter((r) => r.fullName === `alice/${name}`);
  expect(repos, what).toHaveLength(1);
  expect(repos[0]?.pulls, what).toHaveLength(1);
  expect(repos[0]?.pulls[0]?.merged, what).toBe(true);
  expect(tree(fake, name), what).toBe(reference);
}

describe('a kill at every GitHub request of a run, then maker resume only', () => {
  it('ends with one repository, one merged pull request and the unkilled tree, at every index', async () => {
    // Proves: a run SIGKILLed at each of its GitHub requests (one trial per index, before or after
    // it is carried out), then `maker resume` only (or the same command, when killed in the checks
    // before anything exists), ends with one repository, one merged PR and the unkilled tree.
    // Two trials at a time, each lane on its own fake GitHub (its own request numbers): a trial
    // mostly waits (on git, the fake and the state's saves), so two overlap well.
    const lanes = await Promise.all([startLane(), startLane()]);
    const first = lanes[0];
    const refDir = join(await tempDir(), 'ref');
    first.fake.clearRequests();
    const unkilled = await aimed(first, RUN(refDir, 'ref'), env(first.fake));
    expect(unkilled.code, unkilled.stderr).toBe(0);
    const total = first.fake.requests.length;
    const reference = tree(first.fake, 'ref');
    expect(total).toBeGreaterThan(5);
    const trials: string[] = [];
    /** Trials killed in the checks before the start (reads only): run again, not resumed. */
    const preflight: string[] = [];
    // Every index, in one phase each (alternating) by default; in both with MAKER_KILL_CAMPAIGN=full
    // (twice the time).
    const full = process.env['MAKER_KILL_CAMPAIGN'] === 'full';
    const phases = (n: number) =>
      full ? (['received', 'handled'] as const) : ([n % 2 === 1 ? 'received' : 'handled'] as const);
    const queue: { n: number; phase: 'received' | 'handled' }[] = [];
    for (let n = 1; n <= total; n += 1) for (const phase of phases(n)) queue.push({ n, phase });

    async function trial(lane: Lane, { n, phase }: { n: number; phase: 'received' | 'handled' }) {
      const { fake } = lane;
      const name = `k${n}-${phase === 'received' ? 'b' : 'a'}`;
      const dir = join(await tempDir(), name);
      fake.clearRequests();
      lane.aim = { n, phase };
      const killed = await aimed(lane, RUN(dir, name), env(fake));
      lane.aim = undefined;
      const what = `request ${n} (${phase}): ${killed.stderr}`;
      if (killed.signal !== 'SIGKILL') {
        // The run made fewer requests this time (nothing to aim at): it must have finished.
        expect(killed.code, what).toBe(0);
      } else {
        const resumed = await maker(
          ['resume', '--dir', dir, '--json', '--hitl', 'auto'],
          env(fake),
        );
        if (
          resumed.code !== 0 &&
          (await fake.state()).repos.every((r) => r.fullName !== `alice/${name}`)
        ) {
          // Killed in the checks, before the start was recorded: nothing exists, the same command.
          expect(resumed.stderr, what).toContain(
            'nothing was created: run the same `maker run` command again.',
          );
          preflight.push(name);
          const again = await maker(RUN(dir, name), env(fake));
          expect(again.code, `${what}\n${again.stderr}`).toBe(0);
        } else expect(resumed.code, `${what}\n${resumed.stderr}`).toBe(0);
      }
      await expectFinished(fake, name, reference, what);
      trials.push(name);
    }

    // A failed trial stops both lanes from taking more; every trial started is awaited.
    let failed = false;
    const done = await Promise.allSettled(
      lanes.map(async (lane) => {
        for (let next = queue.shift(); next !== undefined && !failed; next = queue.shift())
          await trial(lane, next).catch((error: unknown) => {
            failed = true;
            throw error;
          });
      }),
    );
    for (const lane of done) if (lane.status === 'rejected') throw lane.reason;
    expect(trials).toHaveLength(full ? 2 * total : total);
    // The checks read the token's user and the repository: two requests, before anything exists.
    expect(preflight.length).toBeGreaterThan(0);
    expect(preflight.length).toBeLessThanOrEqual(full ? 4 : 2);
  }, 1_200_000);
  // Killed at the steps after the start is recorded and before the first GitHub request
  // (start:intent-saved, github:repository-ensured, start:set-up), then `maker status` and
  // `maker resume`: in github-e2e.test.ts, among its kill points.
});
