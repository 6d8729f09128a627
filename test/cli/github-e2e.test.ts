import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeGitHub } from '../../src/offline/fake-github.js';
import { maker, type MakerResult } from '../helpers/cli.js';
import { pushSomeoneElses, TOKENS, useFakeGitHub } from '../helpers/github.js';
import { copyKilled, makerGroup, storedFake, type MakerGroup } from '../helpers/process-group.js';
import { useSharedTempDirs, useTempDirs } from '../helpers/tmp.js';

/**
 * `maker run --github` end to end through the bundled CLI against the fake GitHub (its REST API
 * and git over HTTP): from an empty folder to a merged pull request; a veto; and kill -9 at the
 * named checkpoints of the GitHub steps, then resume — one repository, one pull request, the same
 * final tree as an uninterrupted run.
 */
const tempDir = useTempDirs();
const sharedDir = useSharedTempDirs();
const startFake = useFakeGitHub();
const envOf = (fake: FakeGitHub, token: string = TOKENS.full) => ({
  GITHUB_API_URL: fake.baseUrl,
  GITHUB_TOKEN: token,
});

const RUN = (dir: string, name: string, ...more: string[]) => [
  'run',
  'a csv tool',
  '--dir',
  dir,
  '--worker',
  'sim',
  '--github',
  `alice/${name}`,
  '--json',
  ...more,
];

/**
 * A run up to its final veto (`--hitl defer`: its pull request open, the veto asked), made once for
 * the tests that decide that veto (a veto; an accept once main moved), each on its own copy: the
 * run's directory and the fake GitHub's world (kept on disk in its store, beside its bare
 * repositories), served again on the run's recorded port (its URLs name it), one test after the
 * other. The run is the same every time; what each test tests is what follows the veto. One level
 * of subtasks (4 nodes), without the subtasks' checks: what is tested is GitHub's side.
 */
const DEFERRED = 'deferred';
let deferred: Promise<{ dir: string; root: string; port: number }> | undefined;
async function makeDeferred(): Promise<{ dir: string; root: string; port: number }> {
  const base = await sharedDir();
  const dir = join(base, DEFERRED);
  const root = join(base, 'github');
  await mkdir(root);
  const fake = await storedFake(root);
  try {
    const args = RUN(dir, DEFERRED, '--hitl', 'defer', '--no-checks', '--max-depth', '1');
    const first = await maker(args, envOf(fake));
    expect(first.code, first.stderr).toBe(4);
    return { dir, root, port: Number(new URL(fake.baseUrl).port) };
  } finally {
    await fake.close();
  }
}
/** A copy of the deferred run, and a fake GitHub serving its copied world (close it). */
async function deferredCopy(): Promise<{ dir: string; fake: FakeGitHub }> {
  deferred ??= makeDeferred();
  const { dir, root, port } = await deferred;
  const at = join(await tempDir(), 'copy');
  copyKilled(at, dir, DEFERRED, root);
  return { dir: join(at, DEFERRED), fake: await storedFake(join(at, 'github'), { port }) };
}

/** The bare repository's branch, as git sees it in the fake's own directory. */
function bareTree(fake: FakeGitHub, name: string, ref: string): string {
  return execFileSync(
    'git',
    ['--git-dir', join(fake.root, 'alice', `${name}.git`), 'rev-parse', `${ref}^{tree}`],
    {
      encoding: 'utf8',
    },
  ).trim();
}

/** Resolves once `done()` holds (checked every 5 ms); rejects after 20 s, saying `what`. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (const start = Date.now(); !done(); await new Promise((r) => setTimeout(r, 5)))
    if (Date.now() - start > 20_000) throw new Error(`timed out waiting: ${what}`);
}

function summaryOf(result: MakerResult): {
  treeHash: string;
  status: string;
  repository: string | null;
  pullRequest: { number: number; url: string; state: string } | null;
} {
  return JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as ReturnType<
    typeof summaryOf
  >;
}

describe('maker run --github (CLI, against the fake GitHub)', () => {
  it('takes an empty folder to a merged pull request: the default branch ends at the run’s tree, the body lists every node', async () => {
    // Proves: an empty folder ends as a private repository whose main is the run's tree through one
    // merged PR listing every node, every node branch pushed, no token on disk.
    const fake = await startFake();
    const dir = join(await tempDir(), 'app');
    // Without the subtasks' checks: what is tested is GitHub's side (checks have their own tests;
    // with them this run took most of its 120 s limit on a loaded machine). One level of subtasks
    // (4 nodes, not 12): every node is still listed and pushed, the size is not what is tested.
    const run = await maker(
      RUN(dir, 'app', '--hitl', 'auto', '--no-checks', '--max-depth', '1'),
      envOf(fake),
    );
    expect(run.code).toBe(0);
    const summary = summaryOf(run);
    expect(summary.status).toBe('done');
    expect(summary.repository).toBe(`${fake.baseUrl}/alice/app`);
    expect(summary.pullRequest).toMatchObject({ number: 1, state: 'merged' });

    const state = await fake.state();
    expect(state.repos).toHaveLength(1);
    const repo = state.repos[0];
    expect(repo?.private).toBe(true);
    expect(repo?.pulls).toHaveLength(1);
    const pr = repo?.pulls[0];
    expect(pr).toMatchObject({ merged: true, state: 'closed', base: 'main' });
    expect(bareTree(fake, 'app', 'main')).toBe(summary.treeHash);
    // The local default branch is the pull request's merge commit.
    expect(execFileSync('git', ['-C', dir, 'rev-parse', 'main'], { encoding: 'utf8' }).trim()).toBe(
      pr?.mergeCommitSha,
    );
    const saved = JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')) as {
      runs: Record<string, { nodes: Record<string, { id: string; branch?: string }> }>;
    };
    const nodes = Object.values(Object.values(saved.runs)[0]?.nodes ?? {});
    expect(nodes.length).toBeGreaterThan(3);
    for (const n of nodes) {
      expect(pr?.body).toContain(`\`${n.id}\``);
      // Every node branch is on GitHub.
      expect(Object.keys(repo?.branches ?? {})).toContain(n.branch);
    }
    // No token anywhere on disk in the workspace's git config or state.
    const config = await readFile(join(dir, '.git', 'config'), 'utf8');
    expect(config).not.toContain(TOKENS.full);
    expect(JSON.stringify(saved)).not.toContain(TOKENS.full);
  }, 120_000);

  it('a veto leaves the default branch untouched and closes the pull request with one comment, even when killed between the two', async () => {
    // Proves: a veto leaves main as it was and closes the PR with one comment, also when killed
    // between the comment and the close.
    const { dir, fake } = await deferredCopy();
    try {
      const before = (await fake.state()).repos[0];
      const mainBefore = before?.branches['main'];
      expect(before?.pulls).toHaveLength(1);
      expect(before?.pulls[0]?.state).toBe('open');
      const veto = await maker(['answer', 'q-root-veto', 'veto', '--dir', dir], envOf(fake));
      expect(veto.code).toBe(0);
      // Killed between the comment and the close: the resume closes it, with no second comment.
      const killed = await maker(['resume', '--dir', dir, '--json', '--hitl', 'auto'], {
        ...envOf(fake),
        MAKER_CRASH_AT: 'github:veto-commented',
      });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      expect((await fake.state()).repos[0]?.pulls[0]?.state).toBe('open');
      const resumed = await maker(
        ['resume', '--dir', dir, '--json', '--hitl', 'auto'],
        envOf(fake),
      );
      expect(resumed.code).toBe(0);
      expect(summaryOf(resumed)).toMatchObject({
        status: 'vetoed',
        pullRequest: { state: 'closed' },
      });
      const after = (await fake.state()).repos[0];
      expect(after?.branches['main']).toBe(mainBefore);
      expect(after?.pulls[0]).toMatchObject({ state: 'closed', merged: false });
      expect(after?.comments).toHaveLength(1);
      expect(after?.comments[0]?.body).toContain('Vetoed');
      // The branches are kept.
      expect(
        Object.keys(after?.branches ?? {}).filter((b) => b.startsWith('maker/')).length,
      ).toBeGreaterThan(3);
    } finally {
      await fake.close();
    }
  }, 120_000);

  it('killed after merging a moved default branch into the result, before saving it: resume lands one merge', async () => {
    // Proves: killed after merging a moved (conflicting) main into the result, resume lands once.
    const { dir, fake } = await deferredCopy();
    try {
      const env = envOf(fake);
      // Someone edits, on GitHub's main, a file the result also writes: the pull request conflicts.
      const state = JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')) as {
        runs: Record<
          string,
          { baseCommit: string; rootId: string; nodes: Record<string, { commit?: string }> }
        >;
      };
      const run = Object.values(state.runs)[0];
      const rootCommit = run?.nodes[run.rootId]?.commit as string;
      const written = execFileSync(
        'git',
        ['-C', dir, 'diff', '--name-only', run?.baseCommit ?? '', rootCommit],
        { encoding: 'utf8' },
      ).split('\n')[0] as string;
      await pushSomeoneElses(fake, DEFERRED, join(await tempDir(), 'someone'), written);
      expect((await maker(['answer', 'q-root-veto', 'accept', '--dir', dir], env)).code).toBe(0);
      const killed = await maker(['resume', '--dir', dir, '--json', '--hitl', 'auto'], {
        ...env,
        MAKER_CRASH_AT: 'github:base-merged',
      });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      const resumed = await maker(['resume', '--dir', dir, '--json', '--hitl', 'auto'], env);
      expect(resumed.code, `${resumed.stderr} ${resumed.stdout}`).toBe(0);
      expect(summaryOf(resumed)).toMatchObject({
        status: 'done',
        pullRequest: { state: 'merged' },
      });
      const repo = (await fake.state()).repos[0];
      expect(repo?.pulls).toHaveLength(1);
      expect(repo?.pulls[0]?.merged).toBe(true);
      expect(bareTree(fake, DEFERRED, 'main')).toBe(summaryOf(resumed).treeHash);
    } finally {
      await fake.close();
    }
  }, 120_000);

  const CRASH_POINTS = [
    'start:locked',
    'start:intent-saved',
    'github:repository-ensured',
    'start:set-up',
    'github:pr-created',
    'github:pr-saved',
    'github:merge-intent-saved',
    'github:merged',
    'github:fetched',
    'land:read-tree',
  ];

  /** The points after the start is recorded and before the run is saved. */
  const STARTING = ['start:intent-saved', 'github:repository-ensured', 'start:set-up'];

  it(`kill -9 at ${CRASH_POINTS.length} points, then resume: one repository, one pull request, the uninterrupted tree`, async () => {
    // Proves: killed at each seam of the start and of the GitHub steps, then resumed (or, before
    // the start was recorded, the same command again): one repository, one merged pull request, the
    // tree of an unkilled run; killed once the start is recorded, `maker status` shows it interrupted.
    // Without the subtasks' checks: what is tested is GitHub's side at each seam, and 21 runs with
    // some 55 sandboxed checks each took most of this file's time (the checks' own crash and
    // resume are tested in the engine's tests). One level of subtasks (4 nodes, not 12): the pull
    // request is still opened mid-run, once the first child is composed, and every seam is reached.
    const SHALLOW = ['--hitl', 'auto', '--no-checks', '--max-depth', '1'];
    // Not one run per point, killed there (MAKER_CRASH_AT), but ONE run that stops itself at each
    // point (MAKER_STOP_AT, the same seams: it says so and SIGSTOPs itself) while what a kill there
    // leaves is copied: the run's directory and the fake GitHub's world (kept on disk in its store,
    // beside its bare repositories). Then each copy is resumed on a fake GitHub serving its world.
    // As in kill-campaign.test.ts: the run leads its own process group, stopped whole for the copy
    // (the git processes MAKER started had, between its stop and the group's, only the moments a
    // kill of MAKER alone leaves them, then nothing more: what a kill of the whole group leaves, at
    // least as harsh); no request may be in flight at the fake when it is copied (waited for); the
    // copies' fakes listen on the run's recorded port (its URLs name it), one after the other once
    // the run has finished (its lock is then stale, as a killed process's is).
    const base = await tempDir();
    const dir = join(base, 'app');
    const root = join(base, 'github');
    await mkdir(root);
    const open = new Set<number>();
    const first = await storedFake(root, {
      onRequest: (n, phase) => void (phase === 'received' ? open.add(n) : open.delete(n)),
    });
    const port = Number(new URL(first.baseUrl).port);
    const stops: string[] = [];
    const problems: string[] = [];
    let tree: string;
    let run: MakerGroup | undefined;
    try {
      let copying = Promise.resolve();
      /** What a kill at `point` leaves, copied while the run's whole process group is stopped. */
      const copy = async (group: MakerGroup, point: string) => {
        await until(() => group.stopped(), `${point}: the run stopped`);
        process.kill(-group.pid, 'SIGSTOP');
        try {
          await until(() => open.size === 0, `${point}: no request in flight`);
          copyKilled(join(base, point.replace(/[^a-z]/g, '-')), dir, 'app', root);
          stops.push(point);
        } finally {
          process.kill(-group.pid, 'SIGCONT');
        }
      };
      run = makerGroup(
        RUN(dir, 'app', ...SHALLOW),
        { ...envOf(first), MAKER_STOP_AT: CRASH_POINTS.join(',') },
        (line) => {
          const point = /^maker: stopped at (\S+)$/.exec(line)?.[1];
          const group = run;
          if (point === undefined || group === undefined) return;
          copying = copying.then(() =>
            copy(group, point).catch((error: unknown) => void problems.push(String(error))),
          );
        },
      );
      const unkilled = await run.ended;
      await copying;
      expect(problems).toEqual([]);
      expect(unkilled.code, unkilled.stderr).toBe(0);
      tree = summaryOf(unkilled).treeHash;
      expect(bareTree(first, 'app', 'main')).toBe(tree);
    } finally {
      if (run?.running() === true) process.kill(-run.pid, 'SIGKILL');
      await first.close();
    }
    // Stopped at every point, each once.
    expect([...stops].sort()).toEqual([...CRASH_POINTS].sort());

    for (const point of CRASH_POINTS) {
      const at = join(base, point.replace(/[^a-z]/g, '-'));
      const copied = join(at, 'app');
      const fake = await storedFake(join(at, 'github'), { port });
      try {
        const env = envOf(fake);
        if (STARTING.includes(point)) {
          // Killed after the start is recorded, before its run was saved: shown, not forgotten.
          const status = await maker(['status', '--dir', copied], env);
          expect(status.stdout, point).toMatch(/interrupted while starting|interrupted/);
        }
        // Before the run was saved too: its start is recorded first, and maker resume finishes it.
        // Killed between taking the lock and recording the start, nothing was made: the same command.
        const again =
          point === 'start:locked'
            ? await maker(RUN(copied, 'app', ...SHALLOW), env)
            : await maker(['resume', '--dir', copied, '--json', '--hitl', 'auto'], env);
        expect(again.code, `${point}: ${again.stderr} ${again.stdout}`).toBe(0);
        expect(summaryOf(again).treeHash).toBe(tree);
        const repos = (await fake.state()).repos.filter((r) => r.fullName === 'alice/app');
        expect(repos, point).toHaveLength(1);
        expect(repos[0]?.pulls, point).toHaveLength(1);
        expect(repos[0]?.pulls[0]?.merged, point).toBe(true);
        expect(bareTree(fake, 'app', 'main'), point).toBe(tree);
      } finally {
        await fake.close();
        await rm(at, { recursive: true, force: true });
      }
    }
  }, 600_000);
});
