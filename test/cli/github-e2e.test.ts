import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeGitHub } from '../../src/testing/fake-github.js';
import { maker, type MakerResult } from '../helpers/cli.js';
import { git, TOKENS, useFakeGitHub } from '../helpers/github.js';
import { useTempDirs } from '../helpers/tmp.js';

/**
 * `maker run --github` end to end through the bundled CLI against the fake GitHub (its REST API
 * and git over HTTP): from an empty folder to a merged pull request; a veto; and kill -9 at the
 * named checkpoints of the GitHub steps, then resume — one repository, one pull request, the same
 * final tree as an uninterrupted run.
 */
const tempDir = useTempDirs();
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
    // with them this run took most of its 120 s limit on a loaded machine).
    const run = await maker(RUN(dir, 'app', '--hitl', 'auto', '--no-checks'), envOf(fake));
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
    const fake = await startFake();
    const dir = join(await tempDir(), 'vetoed');
    const first = await maker(RUN(dir, 'vetoed', '--hitl', 'defer', '--no-checks'), envOf(fake));
    expect(first.code).toBe(4);
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
    const resumed = await maker(['resume', '--dir', dir, '--json', '--hitl', 'auto'], envOf(fake));
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
  }, 120_000);

  it('killed after merging a moved default branch into the result, before saving it: resume lands one merge', async () => {
    // Proves: killed after merging a moved (conflicting) main into the result, resume lands once.
    const fake = await startFake();
    const dir = join(await tempDir(), 'based');
    const env = envOf(fake);
    expect((await maker(RUN(dir, 'based', '--hitl', 'defer', '--no-checks'), env)).code).toBe(4);
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
    const url = `${fake.baseUrl}/alice/based.git`;
    const clone = join(await tempDir(), 'someone');
    expect((await git('/', ['clone', '-q', url, clone], { token: TOKENS.full, url })).code).toBe(0);
    await mkdir(dirname(join(clone, written)), { recursive: true });
    await writeFile(join(clone, written), 'someone else wrote this\n');
    expect((await git(clone, ['add', '-A'])).code).toBe(0);
    expect((await git(clone, ['commit', '-qm', 'theirs'])).code).toBe(0);
    expect(
      (await git(clone, ['push', '-q', 'origin', 'main'], { token: TOKENS.full, url })).code,
    ).toBe(0);
    expect((await maker(['answer', 'q-root-veto', 'accept', '--dir', dir], env)).code).toBe(0);
    const killed = await maker(['resume', '--dir', dir, '--json', '--hitl', 'auto'], {
      ...env,
      MAKER_CRASH_AT: 'github:base-merged',
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const resumed = await maker(['resume', '--dir', dir, '--json', '--hitl', 'auto'], env);
    expect(resumed.code, `${resumed.stderr} ${resumed.stdout}`).toBe(0);
    expect(summaryOf(resumed)).toMatchObject({ status: 'done', pullRequest: { state: 'merged' } });
    const repo = (await fake.state()).repos[0];
    expect(repo?.pulls).toHaveLength(1);
    expect(repo?.pulls[0]?.merged).toBe(true);
    expect(bareTree(fake, 'based', 'main')).toBe(summaryOf(resumed).treeHash);
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
    const fake = await startFake();
    // Without the subtasks' checks: what is tested is GitHub's side at each seam, and 21 runs with
    // some 55 sandboxed checks each took most of this file's time (the checks' own crash and
    // resume are tested in the engine's tests). One level of subtasks (4 nodes, not 12): the pull
    // request is still opened mid-run, once the first child is composed, and every seam is reached.
    const SHALLOW = ['--hitl', 'auto', '--no-checks', '--max-depth', '1'];
    const reference = await maker(
      RUN(join(await tempDir(), 'ref'), 'ref', ...SHALLOW),
      envOf(fake),
    );
    expect(reference.code).toBe(0);
    const tree = summaryOf(reference).treeHash;
    async function killedAt(point: string) {
      const name = point.replace(/[^a-z]/g, '-');
      const dir = join(await tempDir(), name);
      const env = envOf(fake);
      const crashed = await maker(RUN(dir, name, ...SHALLOW), { ...env, MAKER_CRASH_AT: point });
      expect(crashed.signal, `${point}: ${crashed.stderr}`).toBe('SIGKILL');
      if (STARTING.includes(point)) {
        // Killed after the start is recorded, before its run was saved: shown, not forgotten.
        const status = await maker(['status', '--dir', dir], env);
        expect(status.stdout, point).toMatch(/interrupted while starting|interrupted/);
      }
      // Before the run was saved too: its start is recorded first, and maker resume finishes it.
      // Killed between taking the lock and recording the start, nothing was made: the same command.
      const again =
        point === 'start:locked'
          ? await maker(RUN(dir, name, ...SHALLOW), env)
          : await maker(['resume', '--dir', dir, '--json', '--hitl', 'auto'], env);
      expect(again.code, `${point}: ${again.stderr} ${again.stdout}`).toBe(0);
      expect(summaryOf(again).treeHash).toBe(tree);
      const repos = (await fake.state()).repos.filter((r) => r.fullName === `alice/${name}`);
      expect(repos, point).toHaveLength(1);
      expect(repos[0]?.pulls, point).toHaveLength(1);
      expect(repos[0]?.pulls[0]?.merged, point).toBe(true);
      expect(bareTree(fake, name, 'main'), point).toBe(tree);
    }
    // Two points at a time (each its own repository on the fake): a run mostly waits (on git, the
    // fake and its state's saves). A failure stops both from taking more; each started is awaited.
    const queue = [...CRASH_POINTS];
    let failed = false;
    const lanes = await Promise.allSettled(
      [1, 2].map(async () => {
        for (let point = queue.shift(); point !== undefined && !failed; point = queue.shift())
          await killedAt(point).catch((error: unknown) => {
            failed = true;
            throw error;
          });
      }),
    );
    for (const lane of lanes) if (lane.status === 'rejected') throw lane.reason;
  }, 600_000);
});
