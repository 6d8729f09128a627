import { testOfClass, NO_TEST, type AcceptanceTest } from '../core/acceptance-test.js';
import type { CheckResult } from '../core/checks.js';
import type { Draw, TreeNode } from '../core/tree/schema.js';
import { runCheck, runCheckWhole } from './checks.js';
import type { RunContext } from './run-context.js';
import { tally } from './votes.js';

/** `test` written into `tree` and run there, sandboxed, in a paid slot; the same run once per tree. */
export async function testOn(
  ctx: RunContext,
  tree: string,
  test: AcceptanceTest,
): Promise<CheckResult> {
  const withTest = await ctx.workspace.treeWithEdits(tree, [
    { path: test.path, content: test.content },
  ]);
  return ctx.paid(() => runCheck(ctx, withTest, test.command), { ahead: true });
}

/** {@link testOn}, run every time, with its whole output (for how a candidate failed it). */
export async function testOnWhole(
  ctx: RunContext,
  tree: string,
  test: AcceptanceTest,
): Promise<{ result: CheckResult; output: string }> {
  const withTest = await ctx.workspace.treeWithEdits(tree, [
    { path: test.path, content: test.content },
  ]);
  return ctx.paid(() => runCheckWhole(ctx, withTest, test.command), { ahead: true });
}

/**
 * CodeT's dual agreement (Chen et al., 2022), for a test vote that did not settle (widened by a
 * doubt, or deferred until there were candidates):
 * its two leading tests that fail on `base` (a test that passes without the code proves nothing,
 * and every candidate would agree with it) are each run on the leaf's candidates so far (those that
 * passed everything else), and the test whose votes times the distinct texts that pass it is the
 * larger is chosen.
 * Texts, not samples: a wrong answer repeats word for word, so a misconception shared by the code
 * and a test is one text however often it was drawn (`test-contest.ts`). No choice when neither
 * leads (a tie, or no candidate passes either). The scores are saved before anything reads them,
 * so a resume chooses the same.
 */
export async function agreedWithCode(
  ctx: RunContext,
  n: TreeNode,
  state: NonNullable<TreeNode['acceptanceTest']>,
  base: string,
): Promise<{ test: AcceptanceTest; said: string } | undefined> {
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
    const candidates = (n.leaf?.draws ?? []).filter(
      (d): d is Draw =>
        d !== undefined &&
        (d.status === 'valid' || (d.status === 'flagged' && d.contests !== undefined)),
    );
    const agreement: { key: string; votes: number; passing: number }[] = [];
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
    state.agreement = agreement;
    await ctx.save(n);
  }
  const scored = state.agreement
    .map((a) => ({ ...a, score: a.votes * a.passing }))
    .sort((a, b) => b.score - a.score);
  // A lone rival (the others passed without the code) is chosen when some candidate passes it.
  const [best, second] = scored;
  if (best === undefined || best.score === 0 || best.score === second?.score) return undefined;
  const test = testOfClass(state.vote, best.key);
  const said = scored
    .map((a) => `${a.votes} votes × ${a.passing} ${a.passing === 1 ? 'text' : 'texts'} passing`)
    .join(' against ');
  if (test === undefined) return undefined;
  // The vote's key names the test chosen: what keeps it (`keptTest`) reads.
  if (state.vote.outcome !== undefined && state.vote.outcome.key !== best.key) {
    state.vote.outcome = { ...state.vote.outcome, key: best.key };
    await ctx.save(n);
  }
  return { test, said };
}
