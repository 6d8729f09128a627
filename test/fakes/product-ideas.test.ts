import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { runHiddenTests, writeTree } from '../../src/surfaces/bench/hidden-tests.js';
import { PRODUCT_IDEAS } from '../../src/testing/product/ideas/index.js';
import { writeLeaf, type Flaw, type Rand } from '../../src/testing/product/render.js';
import type { ProductIdea } from '../../src/testing/product/types.js';
import { uniform } from '../../src/core/random.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const randOf =
  (seed: number): Rand =>
  (s) =>
    uniform(seed, 17, s);

/** An idea's product with every leaf correct but `leaf`, written with `flaw`. */
function product(idea: ProductIdea, seed: number, leaf = -1, flaw: Flaw = 'correct') {
  return idea.leaves.flatMap(
    (spec, i) =>
      writeLeaf(spec, randOf(seed * 10 + i), i === leaf ? flaw : 'correct', 'none').files,
  );
}

/** Runs `node --test` on the given test files in `dir`: whether they passed. */
function visible(dir: string, files: readonly string[]): Promise<boolean> {
  return new Promise((resolve) =>
    execFile(process.execPath, ['--test', ...files], { cwd: dir, timeout: 30_000 }, (error) =>
      resolve(error === null),
    ),
  );
}

describe.each(PRODUCT_IDEAS.map((idea) => [idea.name, idea] as const))(
  'built-in product idea %s',
  (_, idea) => {
    it('every bug is in its template exactly once', () => {
      for (const leaf of idea.leaves)
        for (const bug of leaf.bugs) {
          const file = leaf.files.find((f) => f.path === bug.path);
          const text = (file?.blocks ?? []).map((b) => b.text).join('\n');
          expect(text.split(bug.from).length - 1, `${bug.kind} in ${bug.path}`).toBe(1);
        }
    });

    it('correct samples differ from one another, and pass their own and the hidden tests', async () => {
      const forms = new Set<string>();
      for (const seed of [1, 2, 3]) {
        const files = product(idea, seed);
        forms.add(JSON.stringify(files));
        const dir = await tempDir();
        await writeTree(dir, files);
        const own = idea.leaves.flatMap((l) => l.files.slice(1).map((f) => f.path));
        expect(await visible(dir, own)).toBe(true);
        const hidden = await runHiddenTests(dir, idea);
        expect(hidden.tail).not.toMatch(/^not ok/m);
        expect(hidden).toMatchObject({ passed: true, failed: 0, timedOut: false });
        expect(hidden.tests).toBeGreaterThan(1);
      }
      expect(forms.size).toBe(3);
    }, 60_000);

    it('its hidden tests leave nothing in the temporary directory', async () => {
      const leftovers = async () =>
        // What the hidden tests make (`csv-hidden-…`); runHiddenTests' own `maker-hidden-…` come and go.
        (await readdir(tmpdir())).filter((n) => n.includes('-hidden-') && !n.startsWith('maker-'));
      const dir = await tempDir();
      await writeTree(dir, product(idea, 1));
      const before = await leftovers();
      const hidden = await runHiddenTests(dir, idea);
      expect(hidden.passed).toBe(true);
      // Other tests run alongside: only names that were not there before would be these.
      expect((await leftovers()).filter((name) => !before.includes(name))).toEqual([]);
    }, 60_000);

    it("a leaf's code alone passes the check a planner gives it when splitting code from test", async () => {
      // What plans.ts gives the code part: the leaf's codeCheck, else that the module loads.
      for (const [i, leaf] of idea.leaves.entries()) {
        const code = leaf.files[0]?.path ?? '';
        const dir = await tempDir();
        // The leaf's code on the earlier leaves' whole work, as the engine's base has it.
        await writeTree(dir, [
          ...idea.leaves
            .slice(0, i)
            .flatMap((spec, j) => writeLeaf(spec, randOf(70 + j), 'correct', 'none').files),
          ...writeLeaf(leaf, randOf(70 + i), 'correct', 'none').files.filter(
            (f) => f.path === code,
          ),
        ]);
        const check = leaf.codeCheck ?? `node -e "import('./${code}')"`;
        // Its stdin is empty, as in the check sandbox.
        const ok = await new Promise<boolean>((resolve) => {
          const child = execFile('/bin/sh', ['-c', check], { cwd: dir, timeout: 30_000 }, (error) =>
            resolve(error === null),
          );
          child.stdin?.end();
        });
        expect(ok, `${idea.name} leaf ${i}: ${check}`).toBe(true);
      }
    }, 120_000);

    it("each leaf's own test (its check) fails on the obvious flaws and slips", async () => {
      for (const [i, leaf] of idea.leaves.entries()) {
        const own = leaf.files.slice(1).map((f) => f.path);
        for (const [flaw, slip] of [
          ['wrong-export', 'none'],
          ['missing-module', 'none'],
          ['truncated', 'none'],
          ['correct', 'over-escaped'],
          ['correct', 'omission'],
        ] as const) {
          const dir = await tempDir();
          const files = idea.leaves.flatMap(
            (spec, j) =>
              writeLeaf(spec, randOf(50 + j), j === i ? flaw : 'correct', j === i ? slip : 'none')
                .files,
          );
          await writeTree(dir, files);
          expect(await visible(dir, own), `${idea.name} leaf ${i} ${flaw} ${slip}`).toBe(false);
        }
      }
    }, 120_000);

    it('every flaw of every leaf fails the hidden tests', async () => {
      for (const [i, leaf] of idea.leaves.entries())
        for (const flaw of [
          ...leaf.bugs.map((b) => b.kind),
          'wrong-export',
          'missing-module',
          'truncated',
        ] as const) {
          const dir = await tempDir();
          await writeTree(dir, product(idea, 5, i, flaw));
          const hidden = await runHiddenTests(dir, idea);
          expect(hidden.passed, `${idea.name} leaf ${i} ${flaw}`).toBe(false);
        }
    }, 120_000);
  },
);
