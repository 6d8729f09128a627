import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeGitHub } from '../../src/offline/fake-github.js';
import { maker } from '../helpers/cli.js';
import { TOKENS } from '../helpers/github.js';
import { copyKilled, makerGroup, storedFake, type MakerGroup } from '../helpers/process-group.js';
import { useTempDirs } from '../helpers/tmp.js';

/**
 * Issue #27 item 4: a kill aimed at every GitHub request of a small run (at each request index and
 * in both phases, not random times: when the run's nth request arrives, the request then dropped,
 * or once it was carried out, before its answer; the kills at the steps after the start's intent
 * is saved, before its first write to GitHub, are among github-e2e.test.ts's kill points). Each is
 * followed by `maker resume` only, and ends with one repository, one merged pull request and the
 * tree of an unkilled run. Failed at main: a kill before the run's first state save (the first
 * requests) left "Nothing to resume in …: no unfinished run". A kill in the checks before the start
 * is recorded (its first requests, reads only) leaves nothing: `maker resume` says so and to run the
 * same `maker run` again, which finishes it (issue 38). The requests are numbered from 1 for the run
 * (until issue 38 they were numbered from the fake's start, so no aimed kill ever happened): here
 * one fake serves that one run only, and the test checks that it paused at every number, 1 to the
 * last, in both phases.
 *
 * How, cheaply: not one `maker run` per kill, run until the fake kills it, but ONE run, paused at
 * each request while what a kill there leaves is copied (a snapshot), then a `maker resume` per
 * snapshot, each on a fake GitHub serving that snapshot's copy of the world.
 * - What a SIGKILL leaves is what is on disk at that moment: the run's directory and GitHub's
 *   world (the run's scratch files elsewhere are named after its process and swept once it is
 *   gone). The run is spawned as its own process group and the whole group is stopped (SIGSTOP to
 *   -pgid) while the copy is made, then continued: MAKER and its git processes are frozen, nothing
 *   is half-copied. A kill of MAKER alone would let the git processes it started finish on their
 *   own (a push answered updates its remote-tracking ref; one whose request is dropped fails,
 *   having written nothing): frozen, they do nothing more, which is what a kill of the whole group
 *   leaves (the out-of-memory killer, a closed session, a machine stopped), a state MAKER must
 *   resume from too, and at least as harsh: no process finishes anything for it. MAKER's
 *   long-lived git processes (cat-file, update-ref --stdin…) have nothing pending between calls.
 * - GitHub's world is fully on disk at each pause: the fake keeps it in a store (`world.json`,
 *   written before it answers any request that may change something) next to its bare
 *   repositories, and its `onRequest` makes the copy synchronously, so the request waits. At
 *   `received` the request is not carried out yet: the copy is the world a dropped request
 *   leaves. At `handled` it was carried out, its answer not yet sent. No other request may be in
 *   flight at a pause (checked: another one's changes could be half made).
 * - The snapshot's fake listens on the run's recorded port (its URLs name it), so the trials run
 *   one after the other, once the paused run has finished (its lock is then stale, as a killed
 *   process's is). Two snapshots with the same files (paths, modes, contents: nothing changed
 *   between two pauses) are the same kill and are resumed once; each write to GitHub is checked
 *   to be seen in them.
 */
const tempDir = useTempDirs();
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

/** Every file under `dir` (path, mode, contents or link target), as one hash. */
function filesHash(dir: string): string {
  const hash = createHash('sha256');
  const walk = (rel: string) => {
    const path = join(dir, rel);
    const stat = lstatSync(path);
    hash.update(`${rel}\0${stat.mode}\0`);
    if (stat.isSymbolicLink()) hash.update(readlinkSync(path));
    else if (stat.isDirectory())
      for (const name of readdirSync(path).sort()) walk(rel === '' ? name : `${rel}/${name}`);
    else hash.update(readFileSync(path));
    hash.update('\0');
  };
  walk('');
  return hash.digest('hex');
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

interface Snapshot {
  readonly what: string;
  /** The copy of the run's directory and of the fake's root (bare repositories and world.json). */
  readonly dir: string;
}

describe('a kill at every GitHub request of a run, then maker resume only', () => {
  it('ends with one repository, one merged pull request and the unkilled tree, at every index', async () => {
    // Proves: a run killed at each of its GitHub requests (every index, before and after it is
    // carried out), then `maker resume` only (or the same command, when killed in the checks
    // before anything exists), ends with one repository, one merged PR and the unkilled tree.
    const base = await tempDir();
    const runDir = join(base, 'run');
    const root = join(base, 'github');
    const pauses: string[] = [];
    const problems: string[] = [];
    const open = new Set<number>();
    const snapshots: Snapshot[] = [];
    const seen = new Map<string, string>();
    /** Each pause's files, as one hash (`n:phase` → hash). */
    const keys = new Map<string, string>();
    let group: number | undefined;
    /** The snapshot at request n (phase), taken while the run's process group is stopped. */
    const pause = (n: number, phase: 'received' | 'handled') => {
      if (phase === 'received') open.add(n);
      else open.delete(n);
      if (group === undefined) return;
      process.kill(-group, 'SIGSTOP');
      try {
        const what = `request ${n} (${phase})`;
        pauses.push(`${n}:${phase}`);
        const others = [...open].filter((m) => m !== n);
        if (others.length > 0) problems.push(`${what}: requests ${others.join(', ')} in flight`);
        const dir = join(base, `s${n}-${phase}`);
        copyKilled(dir, runDir, 'run', root);
        const key = filesHash(dir);
        keys.set(`${n}:${phase}`, key);
        const same = seen.get(key);
        if (same === undefined) {
          seen.set(key, what);
          snapshots.push({ what, dir });
        } else rmSync(dir, { recursive: true });
      } finally {
        process.kill(-group, 'SIGCONT');
      }
    };
    await mkdir(root);
    const first = await storedFake(root, { onRequest: pause });
    const port = Number(new URL(first.baseUrl).port);
    let total: number;
    let reference: string;
    let run: MakerGroup | undefined;
    try {
      run = makerGroup(RUN(runDir, 'ref'), env(first));
      group = run.pid;
      const unkilled = await run.ended;
      group = undefined;
      expect(unkilled.code, unkilled.stderr).toBe(0);
      total = first.requests.length;
      reference = tree(first, 'ref');
    } finally {
      if (run?.running() === true) process.kill(-run.pid, 'SIGKILL');
      await first.close();
    }
    expect(total).toBeGreaterThan(5);
    expect(problems).toEqual([]);
    // A pause at every request of the run, numbered from 1, in both phases.
    expect(pauses).toEqual(
      Array.from({ length: total }, (_, i) => [`${i + 1}:received`, `${i + 1}:handled`]).flat(),
    );

    // The copies are what they should be: every request that changes GitHub's world (a REST write,
    // a push) is seen in it, its snapshot once carried out differing from the one before.
    const writes = first.requests.flatMap((r, i) =>
      (r.kind === 'api' && r.method !== 'GET') || r.path.endsWith('/git-receive-pack')
        ? [i + 1]
        : [],
    );
    expect(writes.length).toBeGreaterThan(3);
    for (const n of writes)
      expect(keys.get(`${n}:handled`), `request ${n}`).not.toBe(keys.get(`${n}:received`));
    const trials: string[] = [];
    /** Trials killed in the checks before the start (reads only): run again, not resumed. */
    const preflight: string[] = [];
    for (const { what: at, dir } of snapshots) {
      const fake = await storedFake(join(dir, 'github'), { port });
      try {
        const copy = join(dir, 'run');
        const resumed = await maker(
          ['resume', '--dir', copy, '--json', '--hitl', 'auto'],
          env(fake),
        );
        const what = `${at}: ${resumed.stderr}`;
        if (
          resumed.code !== 0 &&
          (await fake.state()).repos.every((r) => r.fullName !== 'alice/ref')
        ) {
          // Killed in the checks, before the start was recorded: nothing exists, the same command.
          expect(resumed.stderr, what).toContain(
            'nothing was created: run the same `maker run` command again.',
          );
          preflight.push(at);
          const again = await maker(RUN(copy, 'ref'), env(fake));
          expect(again.code, `${what}\n${again.stderr}`).toBe(0);
        } else expect(resumed.code, `${what}\n${resumed.stdout}`).toBe(0);
        await expectFinished(fake, 'ref', reference, what);
        trials.push(at);
      } finally {
        await fake.close();
        await rm(dir, { recursive: true, force: true });
      }
    }
    expect(trials).toHaveLength(snapshots.length);
    // The checks read the token's user and the repository: two requests, before anything exists.
    expect(preflight.length).toBeGreaterThan(0);
    expect(preflight.length).toBeLessThanOrEqual(4);
  }, 1_200_000);
  // Killed at the steps after the start is recorded and before the first GitHub request
  // (start:intent-saved, github:repository-ensured, start:set-up), then `maker status` and
  // `maker resume`: in github-e2e.test.ts, among its kill points.
});
