import type { NodeScope } from './plans.js';
import { renderFile, type Rand } from './render.js';
import type { AcceptanceTestSpec, LeafSpec, ProductIdea } from './types.js';

/** What the fake's answers to the test role were: for reports, and to check it behaved as set. */
export type TestAnswerKind =
  'right' | 'none' | 'vacuous' | 'out-of-scope' | 'malformed' | 'misconceived';

/**
 * The realistic fake's answer to the test role (an acceptance test written from a leaf's task and
 * criteria, never from code), for a node of `idea` at `scope`. Right with probability p: the
 * leaf's {@link LeafSpec.acceptanceTest}, else its own test file run by its check, else (a leaf
 * with no test file of its own, such as a manifest, or part of a leaf) no test. Wrong answers
 * repeat identically, so they vote together. Where the leaf has a misconception its right test
 * would catch, a wrong answer shares it as often as a wrong code sample does (the misconception's
 * share): a test that passes the misconceived code and fails the right one, which MAKER keeps (it
 * fails without the code) and which then flags every right candidate. The other wrong answers are
 * half a vacuous test that passes on the tree without the code (MAKER must discard it), the rest a
 * test outside the leaf's files or an answer with no command (red flags).
 */
export function testAnswer(
  idea: ProductIdea,
  scope: NodeScope | undefined,
  rand: Rand,
  p: number,
): { text: string; kind: TestAnswerKind } {
  const leaf =
    scope?.kind === 'leaf' || (scope?.kind === 'part' && codeOnly(idea, scope))
      ? idea.leaves[scope.leaf]
      : undefined;
  // The code half of a leaf split into its code and its test: its test goes beside its own.
  const moved = scope?.kind === 'part';
  const written = leaf === undefined ? undefined : rightTest(leaf);
  const right = written === undefined || !moved ? written : besideOwn(written, idea);
  if (rand(0) < p || leaf === undefined)
    return right === undefined
      ? {
          text: JSON.stringify({
            test: null,
            reason: 'The criteria describe files, not behaviour a test in these files could check.',
          }),
          kind: 'none',
        }
      : {
          text: JSON.stringify({ test: right, reason: 'Checks what the criteria say.' }),
          kind: 'right',
        };
  const python = idea.runtime === 'python';
  const path = right?.path ?? (python ? 'tests/test_planned.py' : 'test/planned.test.js');
  const command =
    right?.command ?? (python ? `python3 -m unittest ${path}` : `node --test ${path}`);
  const misconceived = leaf?.acceptanceTest?.misconceived;
  if (misconceived !== undefined && rand(2) < (leaf?.misconception?.share ?? 0))
    return {
      text: JSON.stringify({
        test: { path: right?.path, content: misconceived, command: right?.command },
        reason: 'Checks what the criteria say.',
      }),
      kind: 'misconceived',
    };
  const r = rand(1);
  if (r < 0.5) {
    // Passes whatever the code does: a test of nothing.
    const content = python
      ? 'import unittest\n\n\nclass Planned(unittest.TestCase):\n    def test_planned(self):\n        self.assertTrue(True)\n'
      : "import { test } from 'node:test';\n\ntest('the module is planned', () => {});\n";
    return {
      text: JSON.stringify({ test: { path, content, command }, reason: 'A smoke test.' }),
      kind: 'vacuous',
    };
  }
  if (r < 0.8) {
    const outside = python ? 'acceptance/test_all.py' : 'acceptance/all.test.js';
    return {
      text: JSON.stringify({
        test: {
          path: outside,
          content: right?.content ?? '',
          command: command.replace(path, outside),
        },
        reason: 'One acceptance file for the project.',
      }),
      kind: 'out-of-scope',
    };
  }
  return {
    text: JSON.stringify({
      test: { path, content: right?.content ?? 'x' },
      reason: 'See the file.',
    }),
    kind: 'malformed',
  };
}

/**
 * Whether a part of a leaf holds its code and none of its test files: the code half of a leaf
 * split into its code and its test, whose task is the leaf's, so a right answer tests what the
 * leaf's criteria say, in a new test file beside the leaf's own (which the test half writes).
 */
function codeOnly(idea: ProductIdea, scope: NodeScope & { kind: 'part' }): boolean {
  const files = (idea.leaves[scope.leaf] as LeafSpec).files.map((f) => f.path);
  return (
    scope.paths.includes(files[0] as string) && !files.slice(1).some((f) => scope.paths.includes(f))
  );
}

/** `test` moved to a new file beside it (`x.test.mjs` → `x.criteria.test.mjs`, `test_x.py` → `test_x_criteria.py`), run alone. */
function besideOwn(test: AcceptanceTestSpec, idea: ProductIdea): AcceptanceTestSpec {
  const python = idea.runtime === 'python';
  const path = python
    ? test.path.replace(/\.py$/, '_criteria.py')
    : test.path.replace(/(\.test)?(\.[cm]?js)$/, '.criteria.test$2');
  return {
    path,
    content: test.content,
    command: python ? `python3 -m unittest ${path}` : `node --test ${path}`,
  };
}

/** A right acceptance test for `leaf`, or none (it has no test file of its own). */
export function rightTest(leaf: LeafSpec): AcceptanceTestSpec | undefined {
  const written = leaf.acceptanceTest;
  if (written !== undefined)
    return { path: written.path, content: written.content, command: written.command };
  const own = leaf.files[1];
  if (own === undefined) return undefined;
  const stem = own.path.slice(own.path.lastIndexOf('/') + 1).replace(/\.[^.]+$/, '');
  if (!leaf.check.includes(stem)) return undefined;
  return { path: own.path, content: renderFile(own, () => 0.3), command: leaf.check };
}
