import { describe, expect, it } from 'vitest';
import { uniform } from '../../src/core/random.js';
import { writeTree } from '../../src/surfaces/bench/hidden-tests.js';
import { rightTest, testAnswer } from '../../src/offline/product/acceptance-answers.js';
import { caseKit } from '../../src/offline/product/ideas/case-kit.js';
import { PRODUCT_IDEAS } from '../../src/offline/product/ideas/index.js';
import { inventory } from '../../src/offline/product/ideas/inventory.js';
import { writeLeaf, type Flaw, type Rand } from '../../src/offline/product/render.js';
import type { ProductIdea } from '../../src/offline/product/types.js';
import { runCheck, type Ended } from '../helpers/product-check.js';
import { usePythonDirectly } from '../helpers/python.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
// The inventory idea's tests start python3 dozens of times.
usePythonDirectly();
const randOf =
  (seed: number): Rand =>
  (s) =>
    uniform(seed, 29, s);

/**
 * How leaf `i`'s right acceptance test (or the one written with its misconception) ends on the
 * leaves it builds on plus leaf `i` written with `flaw` (none: left out).
 */
async function testEnds(
  idea: ProductIdea,
  i: number,
  flaw: Flaw | undefined,
  test: 'right' | 'misconceived' = 'right',
): Promise<Ended> {
  const leaf = idea.leaves[i]!;
  const right = rightTest(leaf)!;
  const content = test === 'right' ? right.content : leaf.acceptanceTest!.misconceived!;
  const dir = await tempDir();
  await writeTree(dir, [
    ...idea.leaves
      .slice(0, i)
      .flatMap((spec, j) => writeLeaf(spec, randOf(j), 'correct', 'none').files),
    ...(flaw === undefined ? [] : writeLeaf(leaf, randOf(i), flaw, 'none').files),
    { path: right.path, content },
  ]);
  return (await runCheck(dir, right.command)).ended;
}

describe("the realistic fake's acceptance tests (issue #36)", () => {
  for (const idea of PRODUCT_IDEAS)
    it(
      `${idea.name}: each right test passes on the right code, fails without it, and catches its misconception where written for it`,
      async () => {
        const leaves = [...idea.leaves.entries()].filter(([, l]) => rightTest(l) !== undefined);
        expect(leaves.length).toBeGreaterThan(0);
        await Promise.all(
          leaves.map(async ([i, leaf]) => {
            expect(await testEnds(idea, i, 'correct'), `leaf ${i} right`).toBe('passed');
            expect(await testEnds(idea, i, undefined), `leaf ${i} without its code`).toBe('failed');
            if (leaf.acceptanceTest !== undefined && leaf.misconception !== undefined)
              expect(await testEnds(idea, i, 'misconception'), `leaf ${i} misconceived`).toBe(
                'failed',
              );
            // A test written with the misconception agrees with the wrong code, not the right one.
            if (leaf.acceptanceTest?.misconceived !== undefined) {
              expect(await testEnds(idea, i, 'misconception', 'misconceived'), `leaf ${i}`).toBe(
                'passed',
              );
              expect(await testEnds(idea, i, 'correct', 'misconceived'), `leaf ${i}`).toBe(
                'failed',
              );
              expect(await testEnds(idea, i, undefined, 'misconceived'), `leaf ${i}`).toBe(
                'failed',
              );
            }
          }),
        );
        // More leaves, more processes (Python's each start one more for the command they test).
      },
      Math.max(60_000, 15_000 * idea.leaves.length),
    );

  it('answers right about p of the time; its wrong answers repeat and include tests that pass without the code', async () => {
    const words = { kind: 'leaf', leaf: 1 } as const;
    const kinds = new Map<string, Set<string>>();
    let right = 0;
    for (let draw = 0; draw < 400; draw++) {
      const answer = testAnswer(caseKit, words, (s) => uniform(5, draw, s), 0.6);
      kinds.set(answer.kind, (kinds.get(answer.kind) ?? new Set()).add(answer.text));
      if (answer.kind === 'right') right += 1;
    }
    expect(right / 400).toBeGreaterThan(0.5);
    expect(right / 400).toBeLessThan(0.7);
    const count = (k: string) => kinds.get(k)?.size ?? 0;
    expect([...kinds.keys()].sort()).toEqual(['malformed', 'out-of-scope', 'right', 'vacuous']);
    // Each kind of answer is written identically every time: wrong ones vote together.
    for (const k of kinds.keys()) expect(count(k), k).toBe(1);
    const vacuous = JSON.parse([...kinds.get('vacuous')!][0]!) as {
      test: { path: string; content: string; command: string };
    };
    const dir = await tempDir();
    await writeTree(dir, [{ path: vacuous.test.path, content: vacuous.test.content }]);
    expect((await runCheck(dir, vacuous.test.command)).ended).toBe('passed');
    // The manifest has no test file of its own: the right answer is no test.
    const manifest = testAnswer(caseKit, { kind: 'leaf', leaf: 0 }, () => 0, 0.6);
    expect(manifest.kind).toBe('none');
    // The code half of a leaf split into its code and its test: the leaf's criteria test, in a new
    // file beside the leaf's own (the test half writes that one); the test half: none.
    const leaf = caseKit.leaves[1]!;
    const [code, own] = leaf.files.map((f) => f.path);
    const half = (paths: string[]) =>
      testAnswer(caseKit, { kind: 'part', leaf: 1, paths }, () => 0, 0.6);
    const codeHalf = half([code!]);
    expect(codeHalf.kind).toBe('right');
    const written = (JSON.parse(codeHalf.text) as { test: { path: string; command: string } }).test;
    expect(written.path).not.toBe(own);
    expect(written.path).toMatch(/\.criteria\.test\.[cm]?js$/);
    expect(written.command).toBe(`node --test ${written.path}`);
    expect(half([own!]).kind).toBe('none');
  }, 30_000);

  it("a share of its wrong answers shares the leaf's misconception, identically", () => {
    // inventory's money leaf: a misconception (floating point) with a share of 0.5 of wrong code.
    const money = { kind: 'leaf', leaf: 1 } as const;
    const texts = new Set<string>();
    let misconceived = 0;
    for (let draw = 0; draw < 400; draw++) {
      const answer = testAnswer(inventory, money, (s) => uniform(7, draw, s), 0.6);
      if (answer.kind !== 'misconceived') continue;
      misconceived += 1;
      texts.add(answer.text);
    }
    // About 0.4 × 0.5 of the answers: wrong, and sharing the misconception.
    expect(misconceived / 400).toBeGreaterThan(0.13);
    expect(misconceived / 400).toBeLessThan(0.27);
    expect(texts.size).toBe(1);
    expect(JSON.parse([...texts][0]!)).toMatchObject({
      test: { path: 'tests/test_money.py', command: 'python3 -m unittest tests/test_money.py' },
    });
  });
});
