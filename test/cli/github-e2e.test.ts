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

  it(`kill -9 at ${CRASH_POINTS.length} points, then resume: one repository, one pull request, the uninterrupted tree`, async () => {
    const fake = await startFake();
    // Without the subtasks' checks: what is tested is GitHub's side at each seam, and 21 runs with
    // some 55 sandboxed checks each took most of this file's time (the checks' own crash and
    // resume are tested in the engine's tests).
    const reference = await maker(
      RUN(join(await tempDir(), 'ref'), 'ref', '--hitl', 'auto', '--no-checks'),
      envOf(fake),
    );
    expect(reference.code).toBe(0);
    const tree = summaryOf(reference).treeHash;
    for (const point of CRASH_POINTS) {
      const name = point.replace(/[^a-z]/g, '-');
      const dir = join(await tempDir(), name);
      const env = envOf(fake);
      const crashed = await maker(RUN(dir, name, '--hitl', 'auto', '--no-checks'), {
        ...env,
        MAKER_CRASH_AT: point,
      });
      expect(crashed.signal, `${point}: ${crashed.stderr}`).toBe('SIGKILL');
      // Before the run was saved too: its start is recorded first, and maker resume finishes it.
      // Killed between taking the lock and recording the start, nothing was made: the same command.
      const again =
        point === 'start:locked'
          ? await maker(RUN(dir, name, '--hitl', 'auto', '--no-checks'), env)
          : await maker(['resume', '--dir', dir, '--json', '--hitl', 'auto'], env);
      expect(again.code, `${point}: ${again.stderr} ${again.stdout}`).toBe(0);
      expect(summaryOf(again).treeHash).toBe(tree);
      const repos = (await fake.state()).repos.filter((r) => r.fullName === `alice/${name}`);
      expect(repos, point).toHaveLength(1);
      expect(repos[0]?.pulls, point).toHaveLength(1);
      expect(repos[0]?.pulls[0]?.merged, point).toBe(true);
      expect(bareTree(fake, name, 'main'), point).toBe(tree);
    }
  }, 600_000);
});
