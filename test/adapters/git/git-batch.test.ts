import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GitBatch, lines } from '../../../src/adapters/git/git-batch.js';
import { GitWorkspace } from '../../../src/adapters/git/git-workspace.js';
import { gitBinary } from '../../../src/adapters/git/git-binary.js';
import { GitLauncher } from '../../../src/adapters/git/git-launcher.js';
import { gitEnv, runGit } from '../../../src/adapters/git/run-git.js';
import type { FileEdit } from '../../../src/ports/workspace.js';
import { useTempDirs } from '../../helpers/tmp.js';

const tempDir = useTempDirs();
const git = (dir: string, args: string[], options: { input?: string; env?: object } = {}) =>
  execFileSync('git', args, {
    cwd: dir,
    encoding: 'utf8',
    input: options.input ?? '',
    env: { ...process.env, ...options.env },
  }).trim();
const DATE = new Date('2026-01-01T00:00:00Z');
const open: GitWorkspace[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((ws) => ws.close()));
});

async function repo() {
  const dir = await tempDir();
  const ws = await GitWorkspace.open(dir, { create: true });
  open.push(ws);
  const base = await ws.commit({
    tree: await ws.treeWithEdits((await ws.resolve('main')) as string, [
      { path: 'README.md', content: '# r\n' },
      { path: 'bin/run.sh', content: '#!/bin/sh\n' },
      { path: 'src/a/deep.ts', content: 'deep\n' },
      { path: 'src/b.ts', content: 'b\n' },
      { path: 'docs/only.md', content: 'only\n' },
    ]),
    parents: [],
    message: 'base',
    date: DATE,
  });
  // An executable and a symlink, as a person would commit them.
  const index = { GIT_INDEX_FILE: join(dir, '.git', 'test-index') };
  git(dir, ['read-tree', base], { env: index });
  const link = git(dir, ['hash-object', '-w', '--stdin'], { input: 'src/b.ts' });
  const exe = git(dir, ['rev-parse', `${base}:bin/run.sh`]);
  git(dir, ['update-index', '--add', '--cacheinfo', `100755,${exe},bin/run.sh`], { env: index });
  git(dir, ['update-index', '--add', '--cacheinfo', `120000,${link},link`], { env: index });
  const tree = git(dir, ['write-tree'], { env: index });
  return { dir, ws, base: tree };
}

/** The tree a private index gives for the same edits: the way MAKER built candidate trees before. */
function indexTree(dir: string, base: string, edits: readonly FileEdit[]): string {
  const scratch = mkdtempSync(join(tmpdir(), 'maker-index-test-'));
  try {
    const env = { GIT_INDEX_FILE: join(scratch, 'index') };
    git(dir, ['read-tree', base], { env });
    const removals = edits.filter((e) => e.content === null).map((e) => e.path);
    if (removals.length > 0)
      git(dir, ['update-index', '--force-remove', '--', ...removals], { env });
    for (const e of edits) {
      if (e.content === null) continue;
      const blob = git(dir, ['hash-object', '-w', '--stdin'], { input: e.content });
      const mode = git(dir, ['ls-tree', base, '--', e.path]).split(' ')[0];
      git(
        dir,
        [
          'update-index',
          '--add',
          '--cacheinfo',
          `${mode === '100755' ? '100755' : '100644'},${blob},${e.path}`,
        ],
        { env },
      );
    }
    return git(dir, ['write-tree'], { env });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const cases: [string, FileEdit[]][] = [
  ['a new file in new nested directories', [{ path: 'x/y/z/new.txt', content: 'new\n' }]],
  [
    'a rewritten executable keeps its bit',
    [{ path: 'bin/run.sh', content: '#!/bin/sh\nexit 0\n' }],
  ],
  ['a symlink rewritten becomes a file', [{ path: 'link', content: 'now a file\n' }]],
  ['removing the last file removes its directory', [{ path: 'docs/only.md', content: null }]],
  [
    'removing a missing path or a directory does nothing',
    [
      { path: 'nope/x', content: null },
      { path: 'src/a', content: null },
    ],
  ],
  [
    'edits and removals across directories',
    [
      { path: 'src/a/deep.ts', content: null },
      { path: 'src/b.ts', content: 'b2\n' },
      { path: 'src/c d é.ts', content: 'spaces, unicode\n' },
      { path: 'README.md', content: '' },
    ],
  ],
  [
    'a file where a removed file was a directory',
    [
      { path: 'docs/only.md', content: null },
      { path: 'docs', content: 'file now\n' },
    ],
  ],
  [
    'a file where every file of a directory was removed',
    [
      { path: 'src/a/deep.ts', content: null },
      { path: 'src/a', content: 'file now\n' },
    ],
  ],
  ['no edits at all', []],
];

describe('candidate trees from hash-object and mktree', () => {
  it.each(cases)('gives the tree a private index gives: %s', async (_, edits) => {
    const { dir, ws, base } = await repo();
    expect(await ws.treeWithEdits(base, edits)).toBe(indexTree(dir, base, edits));
  });

  it.each([
    ['a file under a file', [{ path: 'README.md/x', content: 'x' }]],
    ['a file under a symlink', [{ path: 'link/x', content: 'x' }]],
    ['a file where a directory is', [{ path: 'src', content: 'x' }]],
    [
      'a file where a directory keeps a file',
      [
        { path: 'src/b.ts', content: null },
        { path: 'src', content: 'x' },
      ],
    ],
    [
      'a file and a file under it',
      [
        { path: 'n', content: 'x' },
        { path: 'n/m', content: 'y' },
      ],
    ],
    ['a path into .git', [{ path: '.git/config', content: 'x' }]],
    ['a path that climbs out', [{ path: 'a/../../x', content: 'x' }]],
  ])('refuses what git refuses: %s', async (_, edits) => {
    const { dir, ws, base } = await repo();
    await expect(ws.treeWithEdits(base, edits)).rejects.toThrow();
    expect(() => indexTree(dir, base, edits)).toThrow();
  });
});

describe('long-lived git processes', () => {
  it('fails the request under way when its process is killed twice, then starts a new one', async () => {
    const { dir, base } = await repo();
    const batch = new GitBatch(dir, ['cat-file', '--batch-command']);
    try {
      // An answer that never ends: the request waits until the process dies, is sent again to a
      // new one once, and fails when that one dies too.
      const stuck = batch.request('info HEAD\n', () => undefined);
      await expect.poll(() => batch.pid).toBeDefined();
      const first = batch.pid as number;
      process.kill(first, 'SIGKILL');
      await expect.poll(() => batch.pid, { timeout: 30_000 }).not.toBe(first);
      await expect.poll(() => batch.pid, { timeout: 30_000 }).toBeDefined();
      process.kill(batch.pid as number, 'SIGKILL');
      await expect(stuck).rejects.toMatchObject({ code: 'git-batch', isRetryable: true });
      const out = await batch.request(`info ${base}\n`, lines(1));
      expect(out.toString()).toBe(`${base} tree ${git(dir, ['cat-file', '-s', base])}\n`);
      expect(batch.pid).not.toBe(first);
    } finally {
      await batch.close();
    }
  });

  it('answers a request whose process is killed under it once, from a new process', async () => {
    const { dir, base } = await repo();
    const batch = new GitBatch(dir, ['cat-file', '--batch-command']);
    try {
      let answers = 0;
      const end = lines(1);
      const asked = batch.request(`info ${base}\n`, (out) => {
        answers += 1;
        // The first process's answer is not taken: the process is killed before it is.
        if (answers === 1) {
          process.kill(batch.pid as number, 'SIGKILL');
          return undefined;
        }
        return end(out);
      });
      const out = await asked;
      expect(out.toString()).toBe(`${base} tree ${git(dir, ['cat-file', '-s', base])}\n`);
      expect(answers).toBeGreaterThanOrEqual(2);
    } finally {
      await batch.close();
    }
  });

  it('answers every operation again after each of its processes is killed', async () => {
    const { ws, base } = await repo();
    const tree = await ws.treeWithEdits(base, [{ path: 'k.txt', content: 'k\n' }]);
    const commit = await ws.commit({ tree, parents: [], message: 'k', date: DATE });
    await ws.setBranch('k', commit, null);
    expect(await ws.diff(base, tree)).toContain('+k');
    expect((await ws.changes(base, tree)).map((c) => c.path)).toEqual(['k.txt']);
    const pids = ws.plumbing.batches.map((b) => b.pid);
    expect(pids.every((p) => p !== undefined)).toBe(true);
    for (const pid of pids) process.kill(pid as number, 'SIGKILL');
    process.kill(ws.launcher.pid as number, 'SIGKILL');
    await expect.poll(() => ws.plumbing.batches.every((b) => b.pid === undefined)).toBe(true);
    expect(await ws.treeWithEdits(base, [{ path: 'k.txt', content: 'k\n' }])).toBe(tree);
    expect(await ws.resolve('k')).toBe(commit);
    expect(await ws.diff(base, tree)).toContain('+k');
    expect((await ws.changes(base, tree)).map((c) => c.path)).toEqual(['k.txt']);
    expect(await ws.commit({ tree, parents: [], message: 'k', date: DATE })).toBe(commit);
    await expect(ws.setBranch('k', commit, null)).rejects.toMatchObject({ code: 'git-ref-moved' });
    await ws.setBranch('k', base === commit ? tree : commit, commit);
  });

  it('sends a command again to a new helper when its helper is killed under it', async () => {
    const { dir } = await repo();
    const killed: number[] = [];
    const launcher = new GitLauncher(gitEnv(), (n, helper) => {
      if (n === 1 && helper.pid !== undefined) {
        killed.push(helper.pid);
        helper.kill('SIGKILL');
      }
    });
    try {
      const result = await launcher.run(gitBinary(), ['-C', dir, 'rev-parse', 'main'], {}, '');
      expect(result.code).toBe(0);
      expect(result.stdout.toString().trim()).toBe(git(dir, ['rev-parse', 'main']));
      expect(killed).toHaveLength(1);
      expect(launcher.pid).not.toBe(killed[0]);
    } finally {
      await launcher.close();
    }
  });

  it('fails a command as a transport error, not a hang, when its helper dies twice', async () => {
    const { dir } = await repo();
    const launcher = new GitLauncher(gitEnv(), (n, helper) => {
      if (n <= 2) helper.kill('SIGKILL');
    });
    try {
      await expect(runGit(dir, ['rev-parse', 'main'], { launcher })).rejects.toMatchObject({
        code: 'git-transport',
        isRetryable: true,
      });
      // The next command, on a helper left alone, runs.
      expect((await runGit(dir, ['rev-parse', 'main'], { launcher })).toString().trim()).toBe(
        git(dir, ['rev-parse', 'main']),
      );
    } finally {
      await launcher.close();
    }
  });

  it('kills what a dead helper had under way before sending it again', async () => {
    let helperPid: number | undefined;
    const launcher = new GitLauncher(gitEnv(), (n, helper) => {
      if (n === 1) helperPid = helper.pid;
    });
    // Killed and not yet reaped (a zombie) counts as gone.
    const alive = (pid: number) => {
      try {
        return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    // A process that runs until killed: once the helper started it, the helper is killed.
    const slow = launcher.run('sleep', ['600'], {}, '');
    await expect.poll(() => helperPid).toBeDefined();
    const children = (parent: number) =>
      execFileSync('ps', ['-o', 'pid=', '--ppid', String(parent)], { encoding: 'utf8' })
        .trim()
        .split(/\s+/)
        .filter((p) => p !== '')
        .map(Number);
    await expect.poll(() => children(helperPid as number), { timeout: 30_000 }).toHaveLength(1);
    const [sleeper] = children(helperPid as number);
    process.kill(helperPid as number, 'SIGKILL');
    await expect.poll(() => alive(sleeper as number), { timeout: 30_000 }).toBe(false);
    // Sent again, to a new helper; closing the launcher ends that one and what it runs.
    await expect.poll(() => launcher.pid, { timeout: 30_000 }).not.toBe(helperPid);
    const second = launcher.pid as number;
    await expect.poll(() => children(second), { timeout: 30_000 }).toHaveLength(1);
    const [again] = children(second);
    await launcher.close();
    expect((await slow).code).toBeNull();
    await expect.poll(() => alive(again as number), { timeout: 30_000 }).toBe(false);
  });

  it('leaves no process behind after close', async () => {
    const { ws, base } = await repo();
    const tree = await ws.treeWithEdits(base, [{ path: 'c.txt', content: 'c\n' }]);
    await ws.diff(base, tree);
    await ws.changes(base, tree);
    await ws.setBranch('c', await ws.commit({ tree, parents: [], message: 'c', date: DATE }), null);
    const pids = [...ws.plumbing.batches.map((b) => b.pid), ws.launcher.pid];
    expect(pids.every((p) => p !== undefined)).toBe(true);
    await ws.close();
    for (const pid of pids) expect(() => process.kill(pid as number, 0)).toThrow(/ESRCH/);
    await expect(ws.resolve('main')).rejects.toMatchObject({ code: 'git-batch' });
  });
});
