import { describe, expect, it } from 'vitest';
import { MemoryWorkspace } from '../../../src/adapters/memory/memory-workspace.js';
import { SimPlanner, SimWorker } from '../../../src/adapters/sim/project-sim.js';
import { MakerEngine } from '../../../src/engine/maker-engine.js';
import { makerStateFile } from '../../../src/adapters/state/state-file.js';
import { baseConfig } from '../../helpers/engine.js';
import { useTempDirs } from '../../helpers/tmp.js';

const tempDir = useTempDirs();
const DATE = new Date(0);

describe('MemoryWorkspace', () => {
  it('applies a patch as git apply does: a plain diff applies, a corrupt or stale one does not', async () => {
    const ws = new MemoryWorkspace({ 'a.txt': 'one\ntwo\n' });
    const base = await ws.treeOf((await ws.resolve('main')) as string);
    const plain = await ws.applyPatch(
      base,
      '--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n',
    );
    expect(plain.ok).toBe(true);
    if (plain.ok)
      expect(await ws.readFiles(plain.tree, ['a.txt'])).toEqual([
        { path: 'a.txt', content: 'one\n2\n' },
      ]);
    // A line past the hunk's counts: git says "corrupt patch", and so does the memory workspace.
    expect(
      await ws.applyPatch(base, '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+1\n+extra\n'),
    ).toEqual({ ok: false, reason: 'a.txt: corrupt patch' });
    expect(await ws.applyPatch(base, '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-uno\n+1\n')).toEqual({
      ok: false,
      reason: 'a.txt: patch does not apply',
    });
  });

  it('gives every tree of a long line of edits, deletions and merges whole, whatever it stores', async () => {
    // Trees made from trees: each stored as what changed, every 16th whole again.
    const start: Record<string, string> = {};
    for (let i = 0; i < 40; i++) start[`src/f${i}.txt`] = `${i}\n`;
    const ws = new MemoryWorkspace(start);
    const base = (await ws.resolve('main')) as string;
    const expected = new Map(Object.entries(start));
    let tree = await ws.treeOf(base);
    const made: [string, Map<string, string>][] = [];
    for (let step = 0; step < 40; step++) {
      const edits = [
        { path: `src/f${step}.txt`, content: step % 3 === 0 ? null : `${step} edited\n` },
        { path: `src/new${step}.txt`, content: `new ${step}\n` },
      ];
      tree = await ws.treeWithEdits(tree, edits);
      for (const e of edits)
        if (e.content === null) expected.delete(e.path);
        else expected.set(e.path, e.content);
      made.push([tree, new Map(expected)]);
    }
    for (const [id, files] of made) {
      const paths = [...files.keys()].sort();
      expect(await ws.listFiles(id)).toEqual(paths);
      const read = await ws.readFiles(id, [...paths, 'src/f0.txt', 'missing.txt']);
      expect(read.slice(0, paths.length).map((f) => f.content)).toEqual(
        paths.map((p) => files.get(p)),
      );
      expect(read.at(-1)?.content).toBeNull();
      expect(read.at(-2)?.content).toBeNull(); // deleted at step 0
      // The same content made afresh is the same tree.
      const fresh = new MemoryWorkspace(Object.fromEntries(files));
      expect(await fresh.treeOf((await fresh.resolve('main')) as string)).toBe(id);
    }
    // A merge of two lines of edits from one commit keeps both sides' changes.
    const commit = async (t: string, parents: string[]) =>
      ws.commit({ tree: t, parents, message: t, date: DATE });
    const ours = await commit(made[20]?.[0] as string, [base]);
    const theirs = await commit(
      await ws.treeWithEdits(base, [{ path: 'src/theirs.txt', content: 'theirs\n' }]),
      [base],
    );
    const merged = await ws.merge(ours, theirs);
    expect(merged.ok).toBe(true);
    expect(await ws.listFiles(merged.tree)).toEqual(
      [...(made[20]?.[1].keys() ?? []), 'src/theirs.txt'].sort(),
    );
    expect(await ws.diff(ours, merged.tree)).toBe(
      'diff --git a/src/theirs.txt b/src/theirs.txt\nnew file mode 100644\n--- /dev/null\n+++ b/src/theirs.txt\n@@ -0,0 +1,1 @@\n+theirs\n',
    );
  });

  it('round-trips edits through its diffs and applies ordinary unified diffs', async () => {
    const ws = new MemoryWorkspace({ 'a.txt': 'one\ntwo\nthree\n' });
    const base = (await ws.resolve('main')) as string;
    const edited = await ws.treeWithEdits(base, [
      { path: 'a.txt', content: 'one\n2\nthree\n' },
      { path: 'b.txt', content: 'new\n' },
    ]);
    expect(await ws.applyPatch(base, await ws.diff(base, edited))).toEqual({
      ok: true,
      tree: edited,
    });
    const gitStyle =
      'diff --git a/a.txt b/a.txt\nindex 1..2 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -2,2 +2,2 @@\n-two\n+2\n three\n';
    const applied = await ws.applyPatch(base, gitStyle);
    expect(applied.ok && (await ws.readFiles(applied.tree, ['a.txt']))[0]?.content).toBe(
      'one\n2\nthree\n',
    );
    expect((await ws.applyPatch(base, gitStyle.replace('-two', '-TWO'))).ok).toBe(false);
  });

  it('merges by file, reports conflicts with markers, and moves branches only from the expected commit', async () => {
    const ws = new MemoryWorkspace({ 'a.txt': 'base\n' });
    const base = (await ws.resolve('main')) as string;
    const commit = async (path: string, content: string) =>
      ws.commit({
        tree: await ws.treeWithEdits(base, [{ path, content }]),
        parents: [base],
        message: path,
        date: DATE,
      });
    const left = await commit('l.txt', 'L\n');
    const right = await commit('r.txt', 'R\n');
    const merged = await ws.merge(left, right);
    expect(merged.ok && (await ws.listFiles(merged.tree))).toEqual(['a.txt', 'l.txt', 'r.txt']);
    const clash = await ws.merge(await commit('a.txt', 'x\n'), await commit('a.txt', 'y\n'));
    expect(clash).toMatchObject({ ok: false, conflicts: ['a.txt'] });
    await expect(ws.setBranch('main', left, right)).rejects.toThrow(/not point where expected/);
    const plan = await ws.planLanding('main', left, base, 'land', DATE);
    expect(plan).toEqual({ from: base, to: left });
    await ws.completeLanding('main', plan.from, plan.to);
    await ws.completeLanding('main', plan.from, plan.to); // again after a crash: done already
    expect(await ws.resolve('main')).toBe(left);
    expect(await ws.planLanding('main', left, base, 'land', DATE)).toEqual({
      from: left,
      to: left,
    });
  });

  it('runs the engine end to end', async () => {
    const ws = new MemoryWorkspace();
    const engine = new MakerEngine({
      workspace: ws,
      roles: { planner: new SimPlanner({ seed: 7 }), worker: new SimWorker({ seed: 7 }) },
      store: makerStateFile(await tempDir()),
    });
    const outcome = await engine.run(await engine.create('an idea', baseConfig));
    expect(outcome.status).toBe('done');
    expect((await ws.listFiles('main')).some((f) => f.endsWith('index.md'))).toBe(true);
  });
});
