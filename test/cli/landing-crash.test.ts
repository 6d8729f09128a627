import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSharedTempDirs, useTempDirs } from '../helpers/tmp.js';
import { maker } from '../helpers/cli.js';

/**
 * kill -9 between every pair of steps of a landing (through the MAKER_CRASH_AT seam, not timing),
 * then resume: the default branch ends at the result, the working tree matches it, and a person's
 * own files are never touched.
 */
const tempDir = useTempDirs();
const sharedDir = useSharedTempDirs();
const PERSON = {
  GIT_AUTHOR_NAME: 'Person',
  GIT_AUTHOR_EMAIL: 'person@example.com',
  GIT_COMMITTER_NAME: 'Person',
  GIT_COMMITTER_EMAIL: 'person@example.com',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
};

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8', env: { ...process.env, ...PERSON } });

/**
 * A person's repository with a file of theirs, run up to the final veto (accepted, not yet landed):
 * a copy of one made once per kind in this file (the run is the same every time; what each test
 * kills is the landing that follows, in its own copy).
 */
async function readyToLand(options: { moveMain: boolean }): Promise<string> {
  let made = ready.get(options.moveMain);
  if (made === undefined) {
    made = makeReadyToLand(options);
    ready.set(options.moveMain, made);
  }
  const source = await made;
  const dir = join(await tempDir(), 'repo');
  execFileSync('cp', ['-a', source, dir]);
  return dir;
}
const ready = new Map<boolean, Promise<string>>();

async function makeReadyToLand(options: { moveMain: boolean }): Promise<string> {
  const dir = join(await sharedDir(), 'repo');
  await mkdir(dir);
  git(dir, 'init', '-q', '-b', 'main');
  await writeFile(join(dir, 'README.md'), 'mine\n');
  git(dir, 'add', 'README.md');
  git(dir, 'commit', '-q', '-m', 'start');
  await writeFile(join(dir, 'notes.txt'), 'my untracked notes\n');
  const run = await maker([
    'run',
    'a csv tool',
    '--dir',
    dir,
    '--worker',
    'sim',
    '--no-checks',
    // A tree of one level: what is killed is the landing of its result, whatever the tree's size.
    '--max-depth',
    '1',
    '--hitl',
    'defer',
  ]);
  expect(run.code).toBe(4);
  if (options.moveMain) {
    // Someone commits on main meanwhile: landing becomes a merge.
    await writeFile(join(dir, 'CHANGELOG.md'), 'by hand\n');
    git(dir, 'add', 'CHANGELOG.md');
    git(dir, 'commit', '-q', '-m', 'meanwhile');
  }
  expect((await maker(['answer', '--dir', dir, 'q-root-veto', 'accept'])).code).toBe(0);
  return dir;
}

async function expectLanded(dir: string, resumed: { code: number | null; stdout: string }) {
  expect(resumed.code).toBe(0);
  const summary = JSON.parse(resumed.stdout) as { finalCommit: string; treeHash: string };
  expect(git(dir, 'rev-parse', 'main').trim()).toBe(summary.finalCommit);
  // The working tree and index are exactly the landed commit, and the person's file is untouched.
  expect(git(dir, 'status', '--porcelain').trim()).toBe('?? notes.txt');
  expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe('my untracked notes\n');
  return git(dir, 'rev-parse', 'main^{tree}').trim();
}

describe('landing survives kill -9 between every step', () => {
  it.each([
    { moveMain: false, steps: ['land:intent-saved', 'land:read-tree', 'land:update-ref'] },
    {
      moveMain: true,
      steps: ['land:merge-commit', 'land:intent-saved', 'land:read-tree', 'land:update-ref'],
    },
  ])(
    'main moved meanwhile: $moveMain',
    async ({ moveMain, steps }) => {
      // Proves: killed at each step of a landing (plain or a merge), resume lands the unkilled tree,
      // main at the result, the working tree clean, the person's untracked file untouched.
      const reference = await readyToLand({ moveMain });
      const expectedTree = await expectLanded(
        reference,
        await maker(['resume', '--dir', reference, '--json']),
      );
      for (const step of steps) {
        const dir = await readyToLand({ moveMain });
        const killed = await maker(['resume', '--dir', dir, '--json'], { MAKER_CRASH_AT: step });
        expect(killed.signal, `${step}: ${killed.stderr}`).toBe('SIGKILL');
        const tree = await expectLanded(dir, await maker(['resume', '--dir', dir, '--json']));
        expect(tree, step).toBe(expectedTree);
      }
    },
    240_000,
  );

  it('finishes a read-tree killed part-way, and refuses (touching nothing) when the person changed files', async () => {
    // Proves: a half-done read-tree is finished by resume; a person's uncommitted edit makes resume
    // refuse and keep it, and once it is put aside the landing completes.
    const dir = await readyToLand({ moveMain: false });
    const killed = await maker(['resume', '--dir', dir, '--json'], {
      MAKER_CRASH_AT: 'land:update-ref',
    });
    expect(killed.signal).toBe('SIGKILL');
    // Emulate a read-tree killed half-way: the index back at main, some result files on disk.
    git(dir, 'read-tree', 'main');
    const written = git(dir, 'ls-files').trim().split('\n');
    expect(written.length).toBe(1); // README.md only: the result's files are untracked now
    const resumed = await maker(['resume', '--dir', dir, '--json']);
    await expectLanded(dir, resumed);

    const other = await readyToLand({ moveMain: false });
    const again = await maker(['resume', '--dir', other, '--json'], {
      MAKER_CRASH_AT: 'land:read-tree',
    });
    expect(again.signal).toBe('SIGKILL');
    await writeFile(join(other, 'README.md'), 'edited by the person\n');
    const refused = await maker(['resume', '--dir', other]);
    expect(refused.code).toBe(1);
    expect(refused.stderr + refused.stdout).toMatch(
      /main is checked out with uncommitted changes of yours \(README\.md\); MAKER did not touch them/,
    );
    expect(await readFile(join(other, 'README.md'), 'utf8')).toBe('edited by the person\n');
    git(other, 'stash');
    await expectLanded(other, await maker(['resume', '--dir', other, '--json']));
    git(other, 'stash', 'pop');
    expect(await readFile(join(other, 'README.md'), 'utf8')).toBe('edited by the person\n');
  }, 120_000);
});
