import { afterEach, describe, expect, it } from 'vitest';
import { GitWorkspace } from '../../../src/adapters/git/git-workspace.js';
import { MemoryWorkspace } from '../../../src/adapters/memory/memory-workspace.js';
import { diffstat, fileStats, statSummary } from '../../../src/core/diffstat.js';
import type { FileEdit, Workspace } from '../../../src/ports/workspace.js';
import { useTempDirs } from '../../helpers/tmp.js';

const tempDir = useTempDirs();
const open: GitWorkspace[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((ws) => ws.close()));
});

const lines = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => `${tag} line ${i}`).join('\n') + '\n';

/** A base tree and a tree that changes, adds, deletes, renames and (in git) makes a binary file. */
async function twoTrees(ws: Workspace, binary: boolean): Promise<[string, string]> {
  const start = await ws.treeWithEdits(
    (await ws.resolve('main')) ?? (await ws.treeOf('HEAD').catch(() => '')),
    [
      { path: 'README.md', content: lines(10, 'readme') },
      { path: 'src/kept.ts', content: lines(30, 'kept') },
      { path: 'src/gone.ts', content: lines(5, 'gone') },
      { path: 'src/old-name.ts', content: lines(40, 'moved') },
    ],
  );
  const edits: FileEdit[] = [
    { path: 'README.md', content: lines(12, 'readme') },
    { path: 'src/new.ts', content: lines(7, 'new') },
    { path: 'src/gone.ts', content: null },
    { path: 'src/old-name.ts', content: null },
    { path: 'src/new-name.ts', content: `${lines(40, 'moved')}one more\n` },
    { path: 'a path with spaces.md', content: 'x\n' },
  ];
  if (binary) edits.push({ path: 'assets/blob.bin', content: 'a\u0000b\u0000c' });
  return [start, await ws.treeWithEdits(start, edits)];
}

describe("a workspace's per-file line counts, without the patch", () => {
  it('git: the counts of the patch it would write (renames once, binary files marked)', async () => {
    const ws = await GitWorkspace.open(await tempDir(), { create: true });
    open.push(ws);
    const [from, to] = await twoTrees(ws, true);
    const stats = await ws.fileStats(from, to);
    const patch = await ws.diff(from, to);
    expect(stats).toEqual(fileStats(patch));
    expect(statSummary(stats)).toBe(diffstat(patch));
    expect(stats.map((s) => s.path)).toContain('src/new-name.ts');
    expect(stats.map((s) => s.path)).not.toContain('src/old-name.ts');
    expect(stats.find((s) => s.path === 'assets/blob.bin')?.binary).toBe(true);
    expect(stats.find((s) => s.path === 'a path with spaces.md')).toMatchObject({ added: 1 });
  });

  it('memory: the counts of its own whole-file hunks', async () => {
    const ws = new MemoryWorkspace();
    const [from, to] = await twoTrees(ws, false);
    const stats = await ws.fileStats(from, to);
    expect(stats).toEqual(fileStats(await ws.diff(from, to)));
    expect(stats).toHaveLength(6);
  });
});
