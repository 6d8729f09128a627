import { execFileSync } from 'node:child_process';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitWorkspace } from '../../../src/adapters/git/git-workspace.js';
import { useTempDirs } from '../../helpers/tmp.js';

/** A run's scratch object store over a real repository: writes stay there until committed. */
const tempDir = useTempDirs();
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
const has = (dir: string, id: string) => {
  try {
    git(dir, 'cat-file', '-e', id);
    return true;
  } catch {
    return false;
  }
};

describe('a run scratch store', () => {
  it.each([
    ['a plain path', 'repo'],
    ['a path with a colon and a quote', 're:po"x'],
  ])('keeps candidates out of the repository until one is committed (%s)', async (_name, name) => {
    const dir = join(await tempDir(), name);
    await mkdir(dir);
    const main = await GitWorkspace.open(dir, { create: true });
    const base = (await main.resolve('main')) as string;
    const run = await main.scratch('r-1');
    const loser = await run.treeWithEdits(base, [{ path: 'a/b/lose.txt', content: 'lose\n' }]);
    const winner = await run.treeWithEdits(base, [{ path: 'a/b/win.txt', content: 'win\n' }]);
    const patched = await run.applyPatch(
      winner,
      'diff --git a/a/c.txt b/a/c.txt\nnew file mode 100644\n--- /dev/null\n+++ b/a/c.txt\n@@ -0,0 +1 @@\n+c\n',
    );
    expect(patched.ok).toBe(true);
    const tree = patched.ok ? patched.tree : '';
    // Read through the run, absent from the repository.
    expect(await run.diff(base, tree)).toContain('+win');
    for (const id of [loser, winner, tree]) expect(has(dir, id)).toBe(false);
    // A diff from outside the run (a live view) still finds it.
    expect(await main.diff(base, tree)).toContain('+c');
    const commit = await run.commit({
      tree,
      parents: [base],
      message: 'win',
      date: new Date(1_000_000_000_000),
    });
    await run.setBranch('main', commit, base);
    expect(has(dir, tree)).toBe(true);
    expect(has(dir, loser)).toBe(false);
    git(dir, 'fsck', '--connectivity-only', '--no-progress');
    await run.discard();
    expect(await readdir(join(dir, '.git'))).not.toContain('maker-scratch');
    expect(git(dir, 'ls-tree', '-r', '--name-only', 'main').split('\n')).toEqual(
      expect.arrayContaining(['a/b/win.txt', 'a/c.txt']),
    );
    git(dir, 'fsck', '--connectivity-only', '--no-progress');
    await main.close();
  });

  it('keeps the stores of runs still going and removes the others', async () => {
    const dir = await tempDir();
    const main = await GitWorkspace.open(dir, { create: true });
    for (const id of ['r-live', 'r-done', 'r/odd']) await (await main.scratch(id)).close();
    await main.sweepScratch(['r-live']);
    expect(await readdir(join(dir, '.git', 'maker-scratch'))).toEqual(['r-live']);
    await main.sweepScratch([]);
    await expect(stat(join(dir, '.git', 'maker-scratch'))).rejects.toThrow();
    await main.close();
  });
});
