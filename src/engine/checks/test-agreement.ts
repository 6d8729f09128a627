import { testOfClass, NO_TEST, type AcceptanceTest } from '../../core/acceptance-test.js';
import type { CheckResult } from '../../core/checks.js';
import { clip } from '../../core/limits.js';
import type { Draw, TreeNode } from '../../core/tree/schema.js';
import { runCheck, runCheckWhole } from './checks.js';
import type { RunContext } from '../run/run-context.js';
import { tally } from '../vote/votes.js';

/** `tree` with `test`'s file written in. */
const withTest = (ctx: RunContext, tree: string, test: AcceptanceTest) =>
  ctx.workspace.treeWithEdits(tree, [{ path: test.path, content: test.content }]);

/** `test` written into `tree` and run there, sandboxed, in a paid slot; the same run once per tree. */
export async function testOn(
  ctx: RunContext,
  tree: string,
  test: AcceptanceTest,
): Promise<CheckResult> {
  const at = await withTest(ctx, tree, test);
  return ctx.paid(() => runCheck(ctx, at, test.command), { ahead: true });
}

/** {@link testOn}, run every time, with its whole output (for how a candidate failed it). */
export async function testOnWhole(
  ctx: RunContext,
  tree: string,
  test: AcceptanceTest,
): Promise<{ result: CheckResult; output: string }> {
  const at = await withTest(ctx, tree, test);
  return ctx.paid(() => runCheckWhole(ctx, at, test.command), { ahead: true });
}

/**
 * CodeT's dual agreement (Chen et al., 2022), for a test vote that did not settle (widened by a
 * doubt, or deferred until there were candidates):
 * its two leading tests that fail on `base` (a test that passes without the code proves nothing,
 * and every candidate would agree with it) are each run on the leaf's candidates so far (those that
 * passed everything else), and the test whose votes times the distinct texts that pass it is the
 * larger is chosen.
 * Texts, not samples: a wrong answer repeats word for word, so a misconception shared by the code
 * and a test is one text however often it was drawn (`test-contest.ts`). The candidates decide
 * only when more of their texts pass the leader; when they back neither (as many texts pass each,
 * or none), the choice would rest on the test's votes, which did not settle: a person is asked
 * which test checks what they meant (`--hitl auto` takes the larger score, none on a tie). The
 * scores are saved before anything reads them, and the question is asked once per leaf, so a
 * resume chooses the same.
 */
export async function agreedWithCode(
  ctx: RunContext,
  n: TreeNode,
  state: NonNullable<TreeNode['acceptanceTest']>,
  base: string,
): Promise<{ test: AcceptanceTest; said: string; by: TestChooser } | undefined> {
  if (state.agreement === undefined) {
    // The leading tests that fail without the code (one that passes there proves nothing, and
    // every candidate passes it too), at most two, from the first three classes.
    const rivals: { key: string; votes: number; test: AcceptanceTest }[] = [];
    for (const c of tally(state.vote.draws)
      .filter((c) => c.key !== NO_TEST)
      .slice(0, 3)) {
      const test = testOfClass(state.vote, c.key);
      if (test === undefined || rivals.length === 2) continue;
      if (!(await testOn(ctx, base, test)).ok) rivals.push({ key: c.key, votes: c.votes, test });
    }
    const agreement = await agreementOf(ctx, n, rivals);
    state.agreement = agreement;
    await ctx.save(n);
  }
  const { scored, leader, backed, said } = judged(state.agreement);
  const chosenKey = backed ?? (await askWhichTest(ctx, n, state, scored, leader, said));
  if (chosenKey === undefined) return undefined;
  const test = testOfClass(state.vote, chosenKey);
  if (test === undefined) return undefined;
  // The vote's key names the test chosen: what keeps it (`keptTest`) reads.
  if (state.vote.outcome !== undefined && state.vote.outcome.key !== chosenKey) {
    state.vote.outcome = { ...state.vote.outcome, key: chosenKey };
    await ctx.save(n);
  }
  return { test, said, by: backed !== undefined ? 'code' : answeredBy(ctx, n) };
}

type Agreement = NonNullable<NonNullable<TreeNode['acceptanceTest']>['agreement']>;

/**
 * How many distinct texts of the leaf's candidates so far (those that passed everything else, or
 * failed only its acceptance test) pass each of `rivals`, each test run on each candidate's tree.
 */
export async function agreementOf(
  ctx: RunContext,
  n: TreeNode,
  rivals: readonly { key: string; votes: number; test: AcceptanceTest }[],
): Promise<Agreement> {
  const candidates = (n.leaf?.draws ?? []).filter(
    (d): d is Draw =>
      d !== undefined &&
      (d.status === 'valid' || (d.status === 'flagged' && d.contests !== undefined)),
  );
  const agreement: Agreement = [];
  for (const { test, ...rival } of rivals) {
    const passing = new Set<string>();
    for (const d of candidates) {
      const tree = d.tree ?? (d.status === 'valid' ? d.key : undefined);
      if (tree === undefined) continue;
      if ((await testOn(ctx, tree, test)).ok)
        passing.add(d.contests?.text ?? d.alias ?? d.behaviour?.text ?? d.key ?? '');
    }
    agreement.push({ key: rival.key, votes: rival.votes, passing: passing.size });
  }
  return agreement;
}

/**
 * CodeT's dual agreement over saved scores: each test's votes times the distinct candidate texts
 * that pass it, the leader first (`leader`: its key, unless it ties or none passes). A lone rival
 * (the others passed without the code) leads when some candidate passes it. The code backs the
 * leader (`backed`: its key) only when more of its texts pass it: else the choice rests on the
 * test's votes alone, which did not settle.
 */
export function judged(agreement: Agreement) {
  const scored = agreement
    .map((a) => ({ ...a, score: a.votes * a.passing }))
    .sort((a, b) => b.score - a.score);
  const [best, second] = scored;
  const lead = best !== undefined && best.score > 0 && best.score !== second?.score;
  const said = scored
    .map((a) => `${a.votes} votes × ${a.passing} ${a.passing === 1 ? 'text' : 'texts'} passing`)
    .join(' against ');
  const leader = lead ? best.key : undefined;
  const backed =
    lead && (second === undefined || best.passing > second.passing) ? best.key : undefined;
  return { scored, leader, backed, said };
}

/** Who chose a disputed test: the candidates (more of their texts pass it), a person, or `--hitl auto`. */
export type TestChooser = 'code' | 'person' | 'auto';

/** How a reason says who chose the test. */
export function chosenBy(by: TestChooser, said: string): string {
  if (by === 'code')
    return `of its leading tests the candidates agree most with this one (${said})`;
  return `the candidates backed none of its leading tests over another (${said}), and ${by === 'auto' ? 'this one was taken automatically (--hitl auto: the most votes × passing texts)' : 'a person chose this one'}`;
}

/** How a reason says why no test was chosen (the question answered "none", or never asked). */
export function noneChosen(ctx: RunContext, n: TreeNode): string {
  const q = testQuestion(ctx, n);
  if (q?.answer === undefined) return 'the candidates agree with none of its leading tests more';
  return q.answer.auto === true
    ? 'the candidates backed none of its leading tests over another, and they tied (--hitl auto takes none)'
    : 'a person chose none of its leading tests';
}

/** The id of the question a leaf's disputed acceptance test is asked as (one per leaf). */
export const testQuestionId = (n: TreeNode) => `q-${n.id}-acceptance-test`;

/**
 * Asks which of the leading tests checks what was meant, when the candidates back neither more
 * than the other (a test and the code can share a misconception; a person can tell). Options: each
 * rival test, most votes first, and none (the planned check decides). Resolves with the chosen
 * class's key, or undefined for none. `auto` is what `--hitl auto` takes.
 */
async function askWhichTest(
  ctx: RunContext,
  n: TreeNode,
  state: NonNullable<TreeNode['acceptanceTest']>,
  scored: readonly { key: string; votes: number; passing: number }[],
  auto: string | undefined,
  said: string,
): Promise<string | undefined> {
  const rivals = scored
    .map((a) => ({ ...a, test: testOfClass(state.vote, a.key) }))
    .filter((a): a is typeof a & { test: AcceptanceTest } => a.test !== undefined);
  if (rivals.length === 0) return undefined;
  const optionOf = (key: string | undefined) => {
    const i = rivals.findIndex((r) => r.key === key);
    return i < 0 ? 'none' : `test-${i + 1}`;
  };
  const answer = await ctx.ask(
    {
      id: testQuestionId(n),
      nodeId: n.id,
      kind: 'select',
      prompt: `The acceptance test of "${n.title}" is in doubt: its vote did not settle, and the candidates do not back one of its leading tests over the other (${said}). Which one checks what you meant?`,
      options: [
        ...rivals.map((r, i) => ({
          id: `test-${i + 1}`,
          label: `Test ${i + 1}: ${r.test.path}, run by \`${r.test.command}\` (${r.votes} ${r.votes === 1 ? 'vote' : 'votes'}; ${r.passing} candidate ${r.passing === 1 ? 'text passes' : 'texts pass'} it)`,
          detail: clip(r.test.content, 3000),
        })),
        { id: 'none', label: 'Neither: no acceptance test, the planned check decides' },
      ],
      context: `Done when: ${n.acceptance.join('; ') || n.description}`,
    },
    { optionId: optionOf(auto) },
  );
  const picked = /^test-(\d+)$/.exec(answer.optionId ?? '');
  return picked === null ? undefined : rivals[Number(picked[1]) - 1]?.key;
}

/** The leaf's test question, once asked. */
const testQuestion = (ctx: RunContext, n: TreeNode) =>
  ctx.run.questions.find((x) => x.id === testQuestionId(n));

/** Whether `--hitl auto` answered the leaf's test question (a person's answer is never revisited). */
export const autoChosen = (ctx: RunContext, n: TreeNode) =>
  testQuestion(ctx, n)?.answer?.auto === true;

/** Who answered the leaf's test question: a person, or the `--hitl auto` policy. */
function answeredBy(ctx: RunContext, n: TreeNode): 'auto' | 'person' {
  return autoChosen(ctx, n) ? 'auto' : 'person';
}
