import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { GitWorkspace } from '../../../src/adapters/git/git-workspace.js';
import { useTempDirs } from '../../helpers/tmp.js';

const tempDir = useTempDirs();
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
const DATE = new Date('2026-01-01T00:00:00Z');

async function repo() {
  const dir = await tempDir();
  const ws = await GitWorkspace.open(dir, { create: true });
  const base = (await ws.resolve('main')) as string;
  return { dir, ws, base };
}

describe('GitWorkspace', () => {
  it('creates a repository with a main branch, and refuses a non-repository unless asked to create', async () => {
    const { dir, base } = await repo();
    expect(base).toMatch(/^[0-9a-f]{40}$/);
    expect(git(dir, 'branch', '--show-current')).toBe('main');
    const plain = await tempDir();
    await expect(GitWorkspace.open(plain)).rejects.toThrow(/not a git repository/);
    const empty = await tempDir();
    git(empty, 'init', '--initial-branch=trunk');
    const opened = await GitWorkspace.open(empty);
    expect(await opened.resolve('trunk')).toMatch(/^[0-9a-f]{40}$/);
    const nested = `${dir}/sub/project`;
    await GitWorkspace.open(nested, { create: true });
    expect(git(nested, 'rev-parse', '--show-toplevel')).toBe(nested);
  });

  it('makes repositories git fsck accepts, and sweeps scratch directories a killed process left', async () => {
    const { dir } = await repo();
    expect(() => git(dir, 'fsck', '--strict')).not.toThrow();
    const { mkdir, readdir } = await import('node:fs/promises');
    const scratch = `${dir}/.git/maker-tmp`;
    await mkdir(`${scratch}/maker-index-999999-5-abc`, { recursive: true });
    await mkdir(`${scratch}/maker-check-${process.ppid}-1-abc`, { recursive: true }); // pid reused: gone too
    await GitWorkspace.open(dir);
    expect(await readdir(scratch)).toEqual([]);
  });

  it('builds trees from edits and patches without touching the working tree, with layout-independent identity', async () => {
    const { dir, ws, base } = await repo();
    const edited = await ws.treeWithEdits(base, [{ path: 'src/a.txt', content: 'hello\n' }]);
    const patch = await ws.diff(base, edited);
    expect(patch).toContain('+++ b/src/a.txt');
    const applied = await ws.applyPatch(base, patch);
    expect(applied).toEqual({ ok: true, tree: edited });
    // The same change with a differently laid-out patch lands on the same tree.
    const handWritten =
      'diff --git a/src/a.txt b/src/a.txt\nnew file mode 100644\n--- /dev/null\n+++ b/src/a.txt\n@@ -0,0 +1 @@\n+hello\n';
    expect(await ws.applyPatch(base, handWritten)).toEqual({ ok: true, tree: edited });
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('reports a patch that does not apply at its base', async () => {
    const { ws, base } = await repo();
    const stale = 'diff --git a/x.txt b/x.txt\n--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-old\n+new\n';
    const result = await ws.applyPatch(base, stale);
    expect(result.ok).toBe(false);
    expect(result.ok === false && result.reason).toMatch(/x\.txt/);
  });

  it('commits deterministically: the same content, parents and date give the same commit', async () => {
    const { ws, base } = await repo();
    const tree = await ws.treeWithEdits(base, [{ path: 'f', content: '1\n' }]);
    const request = { tree, parents: [base], message: 'Add f\n\nMaker-Node: 0', date: DATE };
    const a = await ws.commit(request);
    expect(await ws.commit(request)).toBe(a);
    await ws.setBranch('maker/r1/n-0', a, null);
    expect(await ws.resolve('maker/r1/n-0')).toBe(a);
  });

  it('moves a branch only from the expected commit', async () => {
    const { ws, base } = await repo();
    const tree = await ws.treeWithEdits(base, [{ path: 'f', content: '1\n' }]);
    const c = await ws.commit({ tree, parents: [base], message: 'c', date: DATE });
    await ws.setBranch('b', base, null);
    await expect(ws.setBranch('b', c, null)).rejects.toThrow(/did not point where expected/);
    await ws.setBranch('b', c, base);
    expect(await ws.resolve('b')).toBe(c);
  });

  it('merges two commits into a tree, and names the conflicting paths', async () => {
    const { ws, base } = await repo();
    const commitWith = async (path: string, content: string) =>
      ws.commit({
        tree: await ws.treeWithEdits(base, [{ path, content }]),
        parents: [base],
        message: path,
        date: DATE,
      });
    const left = await commitWith('a.txt', 'A\n');
    const right = await commitWith('b.txt', 'B\n');
    const merged = await ws.merge(left, right);
    expect(merged.ok).toBe(true);
    const both = await ws.treeWithEdits(base, [
      { path: 'a.txt', content: 'A\n' },
      { path: 'b.txt', content: 'B\n' },
    ]);
    expect(merged.ok && merged.tree).toBe(both);
    const clash = await commitWith('a.txt', 'other\n');
    const conflicted = await ws.merge(left, clash);
    expect(conflicted).toMatchObject({ ok: false, conflicts: ['a.txt'] });
    const [marked] = await ws.readFiles(conflicted.tree, ['a.txt']);
    expect(marked?.content).toMatch(/^<{7} /m);
  });
});

describe('GitWorkspace.runCheck', () => {
  it('runs a command in a scratch checkout of a tree and reports pass, fail and timeout', async () => {
    const { dir, ws, base } = await repo();
    const tree = await ws.treeWithEdits(base, [{ path: 'ok.sh', content: 'echo fine\n' }]);
    expect(await ws.runCheck(tree, 'test -f ok.sh && sh ok.sh', 10_000)).toEqual({
      ok: true,
      output: 'fine\n',
    });
    const failed = await ws.runCheck(tree, 'echo broken >&2; exit 3', 10_000);
    expect(failed.ok).toBe(false);
    expect(failed.output).toContain('broken');
    expect((await ws.runCheck(tree, 'sleep 5', 200)).output).toMatch(/timed out/);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('checks the tree exactly as committed: export-ignore and export-subst do not apply', async () => {
    const { ws, base } = await repo();
    const tree = await ws.treeWithEdits(base, [
      { path: '.gitattributes', content: 'tests/ export-ignore\nversion.txt export-subst\n' },
      { path: 'tests/run.sh', content: 'echo tests ran\n' },
      { path: 'version.txt', content: '$Format:%H$\n' },
    ]);
    const commit = await ws.commit({ tree, parents: [base], message: 'attrs', date: DATE });
    expect(await ws.runCheck(commit, 'sh tests/run.sh && cat version.txt', 10_000)).toEqual({
      ok: true,
      output: 'tests ran\n$Format:%H$\n',
    });
  });
});
