import { contestedTest, keptTest, testOfClass } from '../../core/acceptance-test.js';
import type { TreeNode, VoteRecord } from '../../core/tree/schema.js';
import { testContest, testDoubted, testedKey } from '../../core/voting/test-contest.js';
import { DOUBT_REASON, kCeiling } from '../../core/voting/adaptive-k.js';
import type { DrawBehaviour } from '../../core/tree/probe-schema.js';
import { settleTest, TEST_FAILED, voteAcceptanceTest } from './acceptance-test.js';
import { checksRun } from './checks.js';
import {
  agreedWithCode,
  agreementOf,
  autoChosen,
  chosenBy,
  judged,
  noneChosen,
  testOn,
  testOnWhole,
} from './test-agreement.js';
import type { RunContext } from '../run/run-context.js';
import { restartVote } from '../../core/view/summary.js';

/*
 * A leaf's acceptance test against its code (issue #36): after the code's vote, the candidates
 * drawn may doubt the test, choose between its leading tests, revisit a choice made on a coin,
 * contest it or drop it. The test's own vote, and the flag it gives a candidate, are in
 * `acceptance-test.ts`; how the candidates' texts back each test, in `test-agreement.ts`.
 */

/**
 * After the code's vote: when a candidate that passed the planned check failed the leaf's kept
 * acceptance test alone (`testDoubted`), the test's vote goes on at the widest margin the run
 * allows (2k): a wrong test can win 2 : 0, its misconception repeated word for word, and then flags
 * every right candidate. Where the wider vote does not settle, the candidates drawn choose between
 * its two leading tests (`agreedWithCode`): all of them, which is why the doubt waits for the code's
 * vote to end. Once per leaf. Returns true when the code's vote must start again (the test
 * changed, so its candidates were judged by another test); false when the test stands (the code's
 * outcome with it) or there was no doubt. The doubt is saved before the test's vote goes on, and
 * {@link afterDoubt} reads it, so a kill at any point resumes to the same outcome.
 */
export async function doubtTest(
  ctx: RunContext,
  n: TreeNode,
  record: VoteRecord,
  base: string,
): Promise<boolean> {
  const state = n.acceptanceTest;
  const { k } = ctx.run.config;
  // Once per leaf, and not for a test the candidates chose (they have been heard).
  if (
    keptTest(n) === undefined ||
    state === undefined ||
    state.doubted !== undefined ||
    state.agreement !== undefined
  )
    return false;
  if (!testDoubted(record.draws)) return false;
  const from = state.vote.k ?? k;
  const to = kCeiling(k);
  if (to <= from) return false;
  const failing = record.draws.filter((d) => d.status === 'flagged' && d.contests !== undefined);
  const reason = `${DOUBT_REASON}: ${failing.length} ${failing.length === 1 ? 'candidate that passes' : 'candidates that pass'} the planned check ${failing.length === 1 ? 'fails' : 'fail'} it`;
  state.doubted = {
    ...(state.vote.outcome?.key === undefined ? {} : { key: state.vote.outcome.key }),
    from,
  };
  state.vote.k = to;
  state.vote.kRaised = [...(state.vote.kRaised ?? []), reason];
  state.vote.outcome = undefined;
  state.status = undefined;
  state.reason = undefined;
  state.base = undefined;
  await ctx.save(n);
  ctx.emit({ type: 'vote-k-raised', nodeId: n.id, vote: 'acceptance-test', from, to, reason });
  await voteAcceptanceTest(ctx, n, base);
  return afterDoubt(ctx, n, record);
}

/**
 * What the code's vote does once a doubted test's vote is over: starts again when it settled on
 * another test (or none); its outcome stands when the same test does. Idempotent (run again on a
 * resume, it does nothing more). True when the vote was started again.
 */
export async function afterDoubt(
  ctx: RunContext,
  n: TreeNode,
  record: VoteRecord,
): Promise<boolean> {
  const state = n.acceptanceTest;
  const doubted = state?.doubted;
  if (state === undefined || doubted === undefined || doubted.settled === true) return false;
  if (state.status === undefined) return false;
  const now = state.status === 'kept' ? state.vote.outcome?.key : undefined;
  const changed = now !== doubted.key;
  state.doubted = { ...doubted, settled: true, changed };
  if (changed) restartVote(record);
  await ctx.save(n);
  return changed;
}

/**
 * After the code's vote, for a leaf whose test vote did not settle before any candidate was drawn
 * (`deferred`): the candidates choose between its leading tests (`agreedWithCode`). A test chosen
 * is kept (it failed without the code) and the code's vote starts again under it; else the planned
 * check decides, as it did. True when the vote was started again. The choice is saved before it is
 * acted on, and the test's status and the vote's restart are saved together, so a resume acts once.
 */
export async function chooseDeferredTest(
  ctx: RunContext,
  n: TreeNode,
  record: VoteRecord,
  base: string,
): Promise<boolean> {
  const state = n.acceptanceTest;
  if (state?.deferred !== true || state.status !== 'none') return false;
  const { votes, runnerUpVotes } = state.vote.outcome ?? { votes: 0, runnerUpVotes: 0 };
  const agreed = await agreedWithCode(ctx, n, state, base);
  state.deferred = false;
  if (agreed === undefined) {
    await settleTest(
      ctx,
      n,
      'none',
      `No acceptance test: its vote did not settle (${votes} : ${runnerUpVotes}), and ${noneChosen(ctx, n)}; the planned check decides.`,
    );
    return false;
  }
  const { test, said, by } = agreed;
  state.base = await testOn(ctx, base, test);
  restartVote(record);
  await settleTest(
    ctx,
    n,
    'kept',
    `Acceptance test ${test.path} (\`${test.command}\`): voted from the criteria; its vote did not settle (${votes} : ${runnerUpVotes}), and ${chosenBy(by, said)}; it fails without the code, and the candidates were drawn again under it.`,
  );
  return true;
}

/**
 * Once per leaf, after the code's vote under a test that `--hitl auto` took where the candidates
 * backed none of the leading tests (a coin: the test's own vote had not settled either): the
 * candidates drawn since, under that test, choose again between the same tests by the same rule
 * (`agreedWithCode`). Where more of their texts now pass another, that one is kept instead and the
 * code's vote starts again under it; else the automatic choice stands. A person's choice is never
 * revisited. The new agreement is saved before it is acted on, and the switch and the restart
 * are saved together, so a resume acts once. True when the vote was started again.
 */
export async function revisitTest(
  ctx: RunContext,
  n: TreeNode,
  record: VoteRecord,
  base: string,
): Promise<boolean> {
  const state = n.acceptanceTest;
  if (
    state?.agreement === undefined ||
    state.status !== 'kept' ||
    state.revisited?.settled === true ||
    !autoChosen(ctx, n)
  )
    return false;
  if (state.revisited === undefined) {
    const rivals = state.agreement.flatMap(({ key, votes }) => {
      const test = testOfClass(state.vote, key);
      return test === undefined ? [] : [{ key, votes, test }];
    });
    state.revisited = { agreement: await agreementOf(ctx, n, rivals) };
    await ctx.save(n);
  }
  const revisited = state.revisited;
  const { backed, said } = judged(revisited.agreement);
  const test =
    backed !== undefined && backed !== state.vote.outcome?.key
      ? testOfClass(state.vote, backed)
      : undefined;
  if (test === undefined || state.vote.outcome === undefined) {
    revisited.settled = true;
    await ctx.save(n);
    return false;
  }
  // Run before anything changes, so the switch, its settling and the restart are saved at once.
  const onBase = await testOn(ctx, base, test);
  state.vote.outcome = { ...state.vote.outcome, key: backed! };
  state.base = onBase;
  revisited.settled = true;
  restartVote(record);
  await settleTest(
    ctx,
    n,
    'kept',
    `Acceptance test ${test.path} (\`${test.command}\`): voted from the criteria; its vote did not settle, the candidates backed none of its leading tests, and --hitl auto took another; the candidates then drawn under that one back this one (${said}), so it is kept instead: it fails without the code, and the candidates were drawn again under it.`,
  );
  return true;
}

/**
 * When candidates that pass the planned check fail the leaf's acceptance test all the same way, in
 * k more different texts than the largest class that passes it (`core/voting/test-contest.ts`),
 * the test is more likely wrong than they are. It is contested: it gates no more, and the leaf is
 * voted again with how each candidate fares under it as part of its key ({@link testedBehaviour}):
 * right candidates written differently that fail a wrong test alike pool their votes, and a wrong
 * one that shares the test's misconception stands alone. True when it did so. Read from saved
 * draws only, so a resume decides the same.
 */
export async function contestTest(
  ctx: RunContext,
  n: TreeNode,
  record: VoteRecord,
): Promise<boolean> {
  if (keptTest(n) === undefined) return false;
  const contest = testContest(record.draws, record.k ?? ctx.run.config.k);
  if (contest === undefined) return false;
  restartVote(record);
  await settleTest(
    ctx,
    n,
    'contested',
    `Acceptance test contested: candidates in ${contest.failing} different texts that pass the planned check fail it the same way, against ${contest.passing} ${contest.passing === 1 ? 'text' : 'texts'} that pass it, so it is more likely wrong than they are; it gates no more, and candidates vote by how they fare under it.`,
  );
  return true;
}

/**
 * A candidate's key and behaviour under its leaf's contested test (`found`: what its probe gave,
 * `text` its parse-normalised key): the test run on the candidate's tree with the test written in,
 * its outcome keyed with the probe's behaviour key (`testedKey`). Unchanged without a contested test.
 */
export async function testedBehaviour(
  ctx: RunContext,
  n: TreeNode,
  tree: string,
  found: { readonly key: string; readonly behaviour?: DrawBehaviour },
  text: string,
): Promise<{ readonly key: string; readonly behaviour?: DrawBehaviour }> {
  const test = contestedTest(n);
  if (test === undefined || !checksRun(ctx.run)) return found;
  const { result, output } = await testOnWhole(ctx, tree, test);
  const probeKey =
    found.behaviour !== undefined && found.behaviour.unused === undefined ? found.key : undefined;
  return {
    key: testedKey(result.ok, output, probeKey),
    // What the test printed, unless the probe's run keys the candidate too.
    behaviour:
      probeKey === undefined ? { ok: result.ok, output: result.output, text } : found.behaviour!,
  };
}

/**
 * When every candidate of a leaf was flagged and most of them only for failing its acceptance
 * test, the test is more likely wrong than all of them: it is dropped (said in the status) and
 * the leaf voted again with its planned check alone. Not a test the code doubted and whose wider
 * vote then settled on it (or on another): that vote was its trial. True when it did so.
 */
export async function dropFailingTest(
  ctx: RunContext,
  n: TreeNode,
  record: VoteRecord,
): Promise<boolean> {
  if (keptTest(n) === undefined) return false;
  // A test the code doubted, whose vote then settled at the wider margin, has been weighed against
  // these failures already: a repeated wrong answer fails a right test as often as it is drawn.
  if (
    n.acceptanceTest?.doubted !== undefined &&
    n.acceptanceTest.vote.outcome?.status === 'decided'
  )
    return false;
  const flagged = record.draws.filter((d) => d.status === 'flagged');
  const failed = flagged.filter((d) => d.flags.some((f) => f.rule === TEST_FAILED));
  if (failed.length === 0 || failed.length * 2 < flagged.length) return false;
  restartVote(record);
  await settleTest(
    ctx,
    n,
    'dropped',
    `Acceptance test dropped: all ${failed.length} candidates that passed the planned check failed it, so the test is more likely wrong than they are; the planned check decides.`,
  );
  return true;
}
