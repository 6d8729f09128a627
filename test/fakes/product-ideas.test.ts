import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HIDDEN_DIR, runHiddenTests, writeTree } from '../../src/surfaces/bench/hidden-tests.js';
import { PRODUCT_IDEAS } from '../../src/offline/product/ideas/index.js';
import { writeLeaf, type Flaw, type Rand } from '../../src/offline/product/render.js';
import type { ProductIdea } from '../../src/offline/product/types.js';
import { uniform } from '../../src/core/random.js';
import { checkEnv, runCheck, type Ended } from '../helpers/product-check.js';
import { nodeTestBatch } from '../helpers/node-test-batch.js';
import { pythonBatch, type PythonCase } from '../helpers/python-batch.js';
import { usePythonDirectly } from '../helpers/python.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
// The Python ideas' checks and hidden tests start python3 hundreds of times.
usePythonDirectly();
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

/** Asserts how a check ends on the product in `dir` (`what` says which product, for a failure). */
async function expectCheck(dir: string, command: string, want: Ended, what: string) {
  const { ended, tail } = await runCheck(dir, command);
  expect(ended, `${what}: ${command}\n${tail}`).toBe(want);
}

/**
 * Asserts how each check ends on its product, as {@link expectCheck}: a check that is one
 * `node --test` file runs with the others in ONE runner ({@link nodeTestBatch}: its file's own
 * process, in its product's directory, with a check's environment; it passed iff no test in it
 * failed, as `node --test`'s exit status says), any other check as the sandbox runs it.
 */
async function expectChecks(
  checks: readonly { dir: string; command: string; want: 'passed' | 'failed'; what: string }[],
) {
  const batched = checks.filter((c) => NODE_TEST.test(c.command));
  const results = await nodeTestBatch(
    batched.map((c) => ({ dir: c.dir, file: NODE_TEST.exec(c.command)?.[1] ?? '' })),
    checkEnv(),
  );
  batched.forEach((c, k) => {
    const r = results[k];
    const ended = r === undefined || r.timedOut ? 'hung' : r.failed > 0 ? 'failed' : 'passed';
    expect(ended, `${c.what}: ${c.command}\n${r?.tail ?? ''}`).toBe(c.want);
    if (c.want === 'passed') expect(r?.tests, c.what).toBeGreaterThan(0);
  });
  const python = checks.flatMap((c) => {
    const run = pythonRun(c.command);
    return run === undefined ? [] : [{ ...c, run }];
  });
  const ran = await pythonBatch(
    python.map((c) => ({ dir: c.dir, run: c.run })),
    checkEnv(),
  );
  python.forEach((c, k) => {
    const r = ran[k];
    const ended = r === undefined || r.timedOut ? 'hung' : r.passed ? 'passed' : 'failed';
    expect(ended, `${c.what}: ${c.command}\n${r?.tail ?? ''}`).toBe(c.want);
  });
  await inParallel(
    checks.filter((c) => !NODE_TEST.test(c.command) && pythonRun(c.command) === undefined),
    (c) => expectCheck(c.dir, c.command, c.want, c.what),
  );
}

/**
 * A Python check that {@link pythonBatch} runs as its command would: `python3 -m unittest <file>`,
 * or `python3 -c "<code>"` whose code the shell passes on as written (no `$`, backquote or backslash).
 */
function pythonRun(command: string): PythonCase['run'] | undefined {
  const file = /^python3 -m unittest (\S+\.py)$/.exec(command)?.[1];
  if (file !== undefined) return { kind: 'unittest', file };
  const code = /^python3 -c "([^"$`\\]*)"$/.exec(command)?.[1];
  return code === undefined ? undefined : { kind: 'code', code };
}

/** `work` on every item, a few at a time (checks and hidden tests are spawned processes). */
async function inParallel<T, R>(
  items: readonly T[],
  work: (item: T, index: number) => Promise<R>,
  width = 4,
): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i] as T, i);
  };
  await Promise.all(Array.from({ length: width }, lane));
  return results;
}

/** A check that is one `node --test` file (its file). */
const NODE_TEST = /^node --test (\S+)$/;

/** A test's time limit for an idea: more leaves, more processes to spawn. */
const limit = (idea: ProductIdea, base: number) => Math.max(base, 15_000 * idea.leaves.length);

describe('the built-in product ideas', () => {
  it('include Python ones, a three-level one of at least 10 leaves, and misconceptions that break later leaves', () => {
    expect(PRODUCT_IDEAS.some((i) => i.runtime === 'python')).toBe(true);
    expect(PRODUCT_IDEAS.some((i) => (i.runtime ?? 'node') === 'node')).toBe(true);
    const deep = PRODUCT_IDEAS.filter((i) => i.groups !== undefined && i.leaves.length >= 10);
    expect(deep.length).toBeGreaterThan(0);
    const languages = new Set(
      PRODUCT_IDEAS.filter((i) => i.leaves.some((l) => l.misconception?.breaksLater === true)).map(
        (i) => i.runtime ?? 'node',
      ),
    );
    expect([...languages].sort()).toEqual(['node', 'python']);
  });

  it.each(PRODUCT_IDEAS.filter((i) => i.groups !== undefined).map((i) => [i.name, i] as const))(
    '%s: its groups hold every leaf once, and no leaf builds on a later group',
    (_, idea) => {
      const groups = idea.groups ?? [];
      const owner = new Map<number, number>();
      groups.forEach((g, gi) => {
        for (const l of g.leaves) {
          expect(owner.has(l), `leaf ${l} in two groups`).toBe(false);
          owner.set(l, gi);
        }
        for (const d of g.dependsOn) expect(d).toBeLessThan(gi);
      });
      expect([...owner.keys()].sort((a, b) => a - b)).toEqual(idea.leaves.map((_, i) => i));
      /** The groups a group builds on, transitively, and itself. */
      const reach = (gi: number): Set<number> =>
        new Set([gi, ...(groups[gi]?.dependsOn ?? []).flatMap((d) => [...reach(d)])]);
      idea.leaves.forEach((leaf, i) => {
        const mine = owner.get(i) as number;
        for (const d of leaf.dependsOn) {
          const theirs = owner.get(d) as number;
          expect(reach(mine).has(theirs), `leaf ${i} builds on leaf ${d}`).toBe(true);
          if (theirs === mine) expect(d).toBeLessThan(i);
        }
      });
    },
  );

  it.each(PRODUCT_IDEAS.filter((i) => i.groups !== undefined).map((i) => [i.name, i] as const))(
    "%s: each group's check passes on a correct product",
    async (_, idea) => {
      const dir = await tempDir();
      await writeTree(dir, product(idea, 8));
      for (const group of idea.groups ?? [])
        await expectCheck(dir, group.check, 'passed', `${idea.name} correct`);
    },
    60_000,
  );
});

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

    it(
      'correct samples differ from one another, and pass their own and the hidden tests, which leave nothing in the temporary directory',
      async () => {
        const leftovers = async () =>
          // What the hidden tests make (`csv-hidden-…`); runHiddenTests' own `maker-hidden-…` come and go.
          (await readdir(tmpdir())).filter(
            (n) => n.includes('-hidden-') && !n.startsWith('maker-'),
          );
        const before = await leftovers();
        const samples = [1, 2, 3].map((seed) => ({ seed, files: product(idea, seed) }));
        expect(new Set(samples.map((s) => JSON.stringify(s.files))).size).toBe(3);
        const dirs = await inParallel(samples, async ({ files }) => {
          const dir = await tempDir();
          await writeTree(dir, files);
          return dir;
        });
        await expectChecks(
          samples.flatMap(({ seed }, k) =>
            idea.leaves.map((leaf) => ({
              dir: dirs[k] ?? '',
              command: leaf.check,
              want: 'passed' as const,
              what: `${idea.name} seed ${seed}`,
            })),
          ),
        );
        // One after another: the runner's per-file time limit is a third of its 30 s.
        for (const dir of dirs) {
          const hidden = await runHiddenTests(dir, idea);
          expect(hidden.tail).not.toMatch(/^not ok/m);
          expect(hidden).toMatchObject({ passed: true, failed: 0, timedOut: false });
          expect(hidden.tests).toBeGreaterThan(1);
        }
        // Other tests run alongside: only names that were not there before would be these.
        expect((await leftovers()).filter((name) => !before.includes(name))).toEqual([]);
      },
      limit(idea, 60_000),
    );

    it(
      "a leaf's code alone passes the check a planner gives it when splitting code from test",
      async () => {
        // What plans.ts gives the code part: the leaf's codeCheck, else that the module loads.
        await inParallel([...idea.leaves.entries()], async ([i, leaf]) => {
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
          // A leaf of one file is split into it (with its own check) and notes on it.
          const check =
            leaf.files.length === 1
              ? leaf.check
              : (leaf.codeCheck ?? `node -e "import('./${code}')"`);
          await expectCheck(dir, check, 'passed', `${idea.name} leaf ${i}'s code alone`);
        });
      },
      limit(idea, 120_000),
    );

    it(
      "each leaf's own test (its check) fails on the obvious flaws and slips",
      async () => {
        const cases = [...idea.leaves.entries()].flatMap(([i, leaf]) =>
          (
            [
              ['wrong-export', 'none'],
              ['missing-module', 'none'],
              ['truncated', 'none'],
              ['correct', 'over-escaped'],
              ['correct', 'omission'],
            ] as const
          ).map(([flaw, slip]) => ({ i, leaf, flaw, slip })),
        );
        const written = await inParallel(cases, async (c) => {
          const dir = await tempDir();
          const files = idea.leaves.flatMap(
            (spec, j) =>
              writeLeaf(
                spec,
                randOf(50 + j),
                j === c.i ? c.flaw : 'correct',
                j === c.i ? c.slip : 'none',
              ).files,
          );
          await writeTree(dir, files);
          return { ...c, dir, what: `${idea.name} leaf ${c.i} ${c.flaw} ${c.slip}` };
        });
        await expectChecks(
          written.map((c) => ({ dir: c.dir, command: c.leaf.check, want: 'failed', what: c.what })),
        );
      },
      limit(idea, 120_000),
    );

    it(
      'every flaw of every leaf fails the hidden tests',
      async () => {
        const cases = [...idea.leaves.entries()].flatMap(([i, leaf]) =>
          (
            [
              ...leaf.bugs.map((b) => b.kind),
              'wrong-export',
              'missing-module',
              'truncated',
            ] as const
          ).map((flaw) => ({ i, flaw })),
        );
        // Each case's product with the idea's hidden tests beside it, in a directory of its own.
        const dirs = await inParallel(cases, async ({ i, flaw }) => {
          const dir = await tempDir();
          await writeTree(dir, [
            ...product(idea, 5, i, flaw),
            ...idea.hiddenTests.map((t) => ({
              path: `${HIDDEN_DIR}/${t.path}`,
              content: t.content,
            })),
          ]);
          return dir;
        });
        if (idea.runtime === 'python') {
          // As runHiddenTests runs them (`python3 -m unittest discover` in the product's directory,
          // its environment), every case in one interpreter, each with its own tree's modules.
          const tmp = await mkdtemp(join(tmpdir(), 'maker-hidden-'));
          try {
            const results = await pythonBatch(
              dirs.map((dir) => ({
                dir,
                run: { kind: 'discover', start: HIDDEN_DIR, pattern: '*.py' },
              })),
              { PATH: process.env['PATH'] ?? '/usr/bin:/bin', TMPDIR: tmp, NODE_NO_WARNINGS: '1' },
            );
            cases.forEach(({ i, flaw }, k) => {
              const r = results[k];
              // It fails, by itself: a flaw that hangs the hidden tests would be cut off by their time limit.
              expect(
                { passed: r?.passed === true && r.tests > 0, timedOut: r?.timedOut },
                `${idea.name} leaf ${i} ${flaw}\n${r?.tail ?? ''}`,
              ).toEqual({ passed: false, timedOut: false });
            });
          } finally {
            await rm(tmp, { recursive: true, force: true });
          }
          return;
        }
        // A Node idea's hidden tests run as runHiddenTests runs them (`node --test` with its
        // per-test time limit and environment, in the product's directory), every case's in one
        // runner: each case's file still runs alone in a process of its own, and is judged alone.
        const tmp = await mkdtemp(join(tmpdir(), 'maker-hidden-'));
        try {
          const files = idea.hiddenTests.map((t) => `${HIDDEN_DIR}/${t.path}`);
          const results = await nodeTestBatch(
            dirs.flatMap((dir) => files.map((file) => ({ dir, file }))),
            { PATH: process.env['PATH'] ?? '/usr/bin:/bin', TMPDIR: tmp, NODE_NO_WARNINGS: '1' },
            ['--test-timeout=10000'],
          );
          cases.forEach(({ i, flaw }, k) => {
            const mine = results.slice(k * files.length, (k + 1) * files.length);
            const tests = mine.reduce((n, r) => n + r.tests, 0);
            const failed = mine.reduce((n, r) => n + r.failed, 0);
            // It fails, by itself: a flaw that hangs the hidden tests would be cut off by their time limit.
            expect(
              { passed: tests > 0 && failed === 0, timedOut: mine.some((r) => r.timedOut) },
              `${idea.name} leaf ${i} ${flaw}\n${mine.map((r) => r.tail).join('\n')}`,
            ).toEqual({ passed: false, timedOut: false });
          });
        } finally {
          await rm(tmp, { recursive: true, force: true });
        }
      },
      limit(idea, 120_000),
    );

    it('every misconception edit is in its template exactly once, and is written identically by every sample', () => {
      for (const [i, leaf] of idea.leaves.entries()) {
        const m = leaf.misconception;
        if (m === undefined) continue;
        expect(m.share).toBeGreaterThan(0);
        expect(m.share).toBeLessThanOrEqual(1);
        for (const edit of m.edits) {
          const file = leaf.files.find((f) => f.path === edit.path);
          const text = (file?.blocks ?? []).map((b) => b.text).join('\n');
          expect(text.split(edit.from).length - 1, `${idea.name} leaf ${i} ${edit.path}`).toBe(1);
        }
        const forms = new Set(
          [1, 2, 3, 4].map((seed) =>
            JSON.stringify(writeLeaf(leaf, randOf(seed), 'misconception', 'none').files),
          ),
        );
        expect(forms.size, `${idea.name} leaf ${i}`).toBe(1);
      }
    });

    it(
      "a misconception passes its leaf's own check, and fails the hidden tests or a later leaf's check",
      async () => {
        const misconceived = [...idea.leaves.entries()].filter(([, l]) => l.misconception);
        await inParallel(misconceived, async ([i, leaf]) => {
          const dir = await tempDir();
          await writeTree(dir, product(idea, 6, i, 'misconception'));
          await expectCheck(dir, leaf.check, 'passed', `${idea.name} leaf ${i} misconceived`);
          const hidden = await runHiddenTests(dir, idea);
          expect(hidden, `${idea.name} leaf ${i} hidden`).toMatchObject({
            passed: false,
            timedOut: false,
          });
          // One that breaks later leaves fails the check of every leaf that builds on it directly.
          const later = idea.leaves.filter((l) => l.dependsOn.includes(i));
          if (leaf.misconception?.breaksLater === true) {
            expect(later.length).toBeGreaterThan(0);
            for (const l of later)
              await expectCheck(dir, l.check, 'failed', `${idea.name} leaf ${i} misconceived`);
          } else {
            // Only the hidden tests see it: the leaves that build on it pass their checks.
            for (const l of later)
              await expectCheck(dir, l.check, 'passed', `${idea.name} leaf ${i} misconceived`);
          }
        });
      },
      limit(idea, 120_000),
    );
  },
);
