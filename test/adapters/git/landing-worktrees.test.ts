import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitWorkspace } from '../../../src/adapters/git/git-workspace.js';
import { useTempDirs } from '../../helpers/tmp.js';

/** Landing when the target branch is checked out, or being rebased, somewhere other than `dir`. */
const tempDir = useTempDirs();
const PERSON = {
  GIT_AUTHOR_NAME: 'Person',
  GIT_AUTHOR_EMAIL: 'person@example.com',
  GIT_COMMITTER_NAME: 'Person',
  GIT_COMMITTER_EMAIL: 'person@example.com',
};
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, ...PERSON, GIT_SEQUENCE_EDITOR: "sed -i -e 's/^pick/edit/'" },
  }).trim();
const DATE = new Date('2026-01-01T00:00:00Z');

/** A person's repository (two commits on main) and a result commit on top of main to land. */
async function repository(): Promise<{ dir: string; ws: GitWorkspace; from: string; to: string }> {
  const dir = await tempDir();
  git(dir, 'init', '-q', '-b', 'main');
  for (const name of ['a.txt', 'b.txt']) {
    await writeFile(join(dir, name), `${name}\n`);
    git(dir, 'add', name);
    git(dir, 'commit', '-q', '-m', name);
  }
  const ws = await GitWorkspace.open(dir);
  const from = (await ws.resolve('main')) as string;
  const tree = await ws.treeWithEdits(from, [{ path: 'result.txt', content: 'result\n' }]);
  const to = await ws.commit({ tree, parents: [from], message: 'result', date: DATE });
  return { dir, ws, from, to };
}

describe('landing on a branch checked out elsewhere', () => {
  it('brings the linked worktree that has the target checked out along, and leaves this one alone', async () => {
    const { dir, ws, from, to } = await repository();
    try {
      git(dir, 'checkout', '-q', '-b', 'other');
      const elsewhere = join(await tempDir(), 'wt');
      git(dir, 'worktree', 'add', '-q', elsewhere, 'main');
      await ws.completeLanding('main', from, to);
      expect(git(dir, 'rev-parse', 'main')).toBe(to);
      expect(git(elsewhere, 'status', '--porcelain')).toBe('');
      expect(await readFile(join(elsewhere, 'result.txt'), 'utf8')).toBe('result\n');
      expect(git(dir, 'status', '--porcelain')).toBe('');
      expect(git(dir, 'branch', '--show-current')).toBe('other');
    } finally {
      await ws.close();
    }
  });

  it('refuses, moving nothing, when that worktree has uncommitted changes', async () => {
    const { dir, ws, from, to } = await repository();
    try {
      git(dir, 'checkout', '-q', '-b', 'other');
      const elsewhere = join(await tempDir(), 'wt');
      git(dir, 'worktree', 'add', '-q', elsewhere, 'main');
      await writeFile(join(elsewhere, 'a.txt'), 'mine\n');
      await expect(ws.completeLanding('main', from, to)).rejects.toThrow(
        /main is checked out with uncommitted changes of yours \(a\.txt\)/,
      );
      expect(git(dir, 'rev-parse', 'main')).toBe(from);
      expect(await readFile(join(elsewhere, 'a.txt'), 'utf8')).toBe('mine\n');
    } finally {
      await ws.close();
    }
  });

  it.each([false, true])(
    'refuses, moving nothing, while the target is being rebased (in a linked worktree: %s)',
    async (linked) => {
      const { dir, ws, from, to } = await repository();
      try {
        let where = dir;
        if (linked) {
          git(dir, 'checkout', '-q', '-b', 'other');
          where = join(await tempDir(), 'wt');
          git(dir, 'worktree', 'add', '-q', where, 'main');
        }
        git(where, 'rebase', '-q', '-i', 'HEAD~1'); // stops at the first commit: HEAD detached
        await expect(ws.completeLanding('main', from, to)).rejects.toThrow(
          /main is being rebased .*finish or abort the rebase, then resume/,
        );
        expect(git(dir, 'rev-parse', 'main')).toBe(from);
        git(where, 'rebase', '--continue');
        expect(git(dir, 'rev-parse', 'main')).toBe(from);
      } finally {
        await ws.close();
      }
    },
  );
});
