import { execFileSync } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakeGitHub } from '../../src/offline/fake-github.js';
import { maker } from '../helpers/cli.js';
import { useSharedTempDirs, useTempDirs } from '../helpers/tmp.js';

/**
 * `maker demo` serves its own fake GitHub and keeps its world in `.git/maker-fake-github/`: a demo
 * killed at any step (through the MAKER_CRASH_AT seam) is resumed against that fake served again,
 * and ends as an uninterrupted demo does.
 */
const tempDir = useTempDirs();
const sharedDir = useSharedTempDirs();
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

interface World {
  repos: { owner: string; name: string; id: number }[];
  pulls: { number: number; state: string; merged: boolean; mergeCommitSha: string | null }[];
}
const world = async (dir: string) =>
  JSON.parse(await readFile(join(dir, '.git', 'maker-fake-github', 'world.json'), 'utf8')) as World;
const bare = (dir: string) =>
  join(dir, '.git', 'maker-fake-github', 'maker-demo', `${dir.split('/').at(-1) ?? ''}.git`);
const recordedApi = async (dir: string) => {
  const state = JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')) as {
    runs: Record<string, { github?: { apiUrl: string; demoFake?: boolean } }>;
  };
  return Object.values(state.runs)[0]?.github;
};

/** One repository, one merged pull request, the bare repository's main at the run's tree. */
async function expectLanded(
  dir: string,
  result: { code: number | null; stdout: string; stderr: string },
) {
  expect(result.code, result.stderr).toBe(0);
  const summary = JSON.parse(result.stdout) as {
    treeHash: string;
    landed: boolean;
    pullRequest: { number: number; state: string };
  };
  expect(summary).toMatchObject({ landed: true, pullRequest: { number: 1, state: 'merged' } });
  const { repos, pulls } = await world(dir);
  expect(repos).toHaveLength(1);
  expect(pulls).toHaveLength(1);
  expect(pulls[0]).toMatchObject({ number: 1, state: 'closed', merged: true });
  expect(git(bare(dir), 'rev-parse', 'main')).toBe(pulls[0]?.mergeCommitSha);
  expect(git(bare(dir), 'rev-parse', 'main^{tree}')).toBe(summary.treeHash);
  expect(git(dir, 'rev-parse', 'main^{tree}')).toBe(summary.treeHash);
  expect(git(dir, 'status', '--porcelain')).toBe('');
  return summary.treeHash;
}

/** The demos' GitHub and landing steps are tested here, not their checks: no sandbox (unverified). */
const NO_SANDBOX = { MAKER_SANDBOX: 'none' };
/**
 * A smaller demo (5 nodes, 3 leaves: the smallest tree of seeds 1-40; seed 1 has 14 nodes): the
 * same start, GitHub steps, landing and resume, in less time. Its resume reads the seed from the
 * saved run.
 */
const SMALL = ['--seed', '35'];

/**
 * A demo killed (MAKER_CRASH_AT) right after it opened its pull request, before saving it: a copy
 * (named `demo`, as its fake's repository is) of one made once in this file. Its whole run is
 * done by then, the same every time; what each test does next happens in its own copy.
 */
async function killedAtPrCreated(): Promise<string> {
  killedOnce ??= (async () => {
    const dir = join(await sharedDir(), 'demo');
    const killed = await maker(['demo', ...SMALL, '--dir', dir, '--json'], {
      ...NO_SANDBOX,
      MAKER_CRASH_AT: 'github:pr-created',
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    return dir;
  })();
  const source = await killedOnce;
  const dir = join(await tempDir(), 'demo');
  execFileSync('cp', ['-a', source, dir]);
  return dir;
}
let killedOnce: Promise<string> | undefined;

describe('a killed maker demo is resumed on its own fake GitHub, served again', () => {
  it('at every GitHub and landing step (and mid-run): one repository, one merged PR, the same tree as an uninterrupted demo', async () => {
    // Proves: a demo killed mid-run, or at its first GitHub landing step (its pull request
    // opened), is resumed on its own fake, served again on the same port, and lands once with the
    // unkilled tree; and so is that demo killed again, in its resume, at each later GitHub/landing
    // step (each from a copy of the one killed demo: the run before them is the same every time).
    // No checks (MAKER_SANDBOX=none): the GitHub and landing steps are what is killed and resumed
    // here, and 13 runs of some 55 sandboxed checks each outran the test's time on a busy machine.
    const off = { MAKER_SANDBOX: 'none' };
    const reference = join(await tempDir(), 'ref');
    const tree = await expectLanded(
      reference,
      await maker(['demo', ...SMALL, '--dir', reference, '--json'], off),
    );
    expect((await recordedApi(reference))?.demoFake).toBe(true);
    for (const step of [
      'state:log-appended@25',
      'github:pr-created',
      'github:pr-saved',
      'github:merge-intent-saved',
      'github:merged',
      'land:update-ref',
    ]) {
      let dir: string;
      if (step === 'state:log-appended@25') {
        dir = join(await tempDir(), 'demo');
        const killed = await maker(['demo', ...SMALL, '--dir', dir, '--json'], {
          ...off,
          MAKER_CRASH_AT: step,
        });
        expect(killed.signal, `${step}: ${killed.stderr}`).toBe('SIGKILL');
      } else {
        dir = await killedAtPrCreated();
        if (step !== 'github:pr-created') {
          const killed = await maker(['resume', '--dir', dir, '--json'], {
            ...off,
            MAKER_CRASH_AT: step,
          });
          expect(killed.signal, `${step}: ${killed.stderr}`).toBe('SIGKILL');
        }
      }
      expect((await recordedApi(dir))?.demoFake, step).toBe(true);
      const api = (await recordedApi(dir))?.apiUrl;
      const resumed = await maker(['resume', '--dir', dir, '--json'], off);
      expect(await expectLanded(dir, resumed), step).toBe(tree);
      // The port was free again: the same URL.
      expect((await recordedApi(dir))?.apiUrl).toBe(api);
    }
  }, 450_000);

  it('on another port when the recorded one is taken: the run and origin move to it', async () => {
    // Proves: its recorded port taken, the resume serves the fake elsewhere and moves run and origin.
    const dir = await killedAtPrCreated();
    const before = new URL((await recordedApi(dir))?.apiUrl ?? '');
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(Number(before.port), '127.0.0.1', resolve));
    try {
      const resumed = await maker(['resume', '--dir', dir], NO_SANDBOX);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toMatch(/its recorded port was taken/);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
    const after = new URL((await recordedApi(dir))?.apiUrl ?? '');
    expect(after.port).not.toBe(before.port);
    expect(git(dir, 'remote', 'get-url', 'origin')).toBe(`${after.origin}/maker-demo/demo.git`);
    const { repos, pulls } = await world(dir);
    expect([repos.length, pulls.length, pulls[0]?.merged]).toEqual([1, 1, true]);
  }, 120_000);

  it('with its kept world deleted: refused with what happened, the state left as it was', async () => {
    // Proves: with the fake's kept world deleted, resume refuses, says why, and changes no state.
    const dir = await killedAtPrCreated();
    // A copy: no git process the killed demo started writes there.
    await rm(join(dir, '.git', 'maker-fake-github'), { recursive: true });
    const state = join(dir, 'maker-state.json');
    const before = await readFile(state);
    const resumed = await maker(['resume', '--dir', dir], NO_SANDBOX);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(
      /a `maker demo` on its own local fake GitHub, whose world .* was kept in .*maker-fake-github, and it is gone/,
    );
    expect(resumed.stderr).not.toMatch(/GITHUB_TOKEN is not set/);
    expect(await readFile(state)).toEqual(before);
  }, 120_000);

  it('a demo on a fake GitHub of another process keeps nothing of it: its state does not say demoFake', async () => {
    // Proves: a demo on another process's fake records no demoFake and keeps no world of its own.
    const token = `ghp_${'D'.repeat(36)}`;
    const fake = await startFakeGitHub({ tokens: [{ token, login: 'maker-demo' }] });
    try {
      const dir = join(await tempDir(), 'outside');
      const done = await maker(['demo', ...SMALL, '--dir', dir, '--json'], {
        ...NO_SANDBOX,
        GITHUB_API_URL: fake.baseUrl,
        GITHUB_TOKEN: token,
      });
      expect(done.code, done.stderr).toBe(0);
      expect(await recordedApi(dir)).not.toHaveProperty('demoFake');
      await expect(
        readFile(join(dir, '.git', 'maker-fake-github', 'world.json')),
      ).rejects.toThrow();
    } finally {
      await fake.close();
    }
  }, 120_000);
});
