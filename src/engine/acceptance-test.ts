import {
  contestedTest,
  keptTest,
  NO_TEST,
  testAnswerFlags,
  testKey,
  testOfClass,
  winningTest,
} from '../core/acceptance-test.js';
import type { TreeNode, VoteRecord } from '../core/tree/schema.js';
import type { RedFlag } from '../core/voting/types.js';
import { failureDigest, testContest, testDoubted, testedKey } from '../core/voting/test-contest.js';
import { DOUBT_REASON, kCeiling } from '../core/voting/adaptive-k.js';
import type { DrawBehaviour } from '../core/tree/probe-schema.js';
import { inScope } from '../core/paths.js';
import { checksRun, failureExcerpt } from './checks.js';
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
import { parseTestAnswer } from './parse.js';
import { counted, nodeContext, scopeOf, type RunContext } from './run-context.js';
import { plannerSampling } from './sampling.js';
import { restartVote } from './summary.js';
import { exactVote, tally, type DrawResult } from './votes.js';

/** The red-flag rule of a candidate that fails its leaf's acceptance test. */
export const TEST_FAILED = 'acceptance-test-failed';

/**
 * Issue #36's second part: before a leaf's code is sampled, an acceptance test is sampled from its
 * task and acceptance criteria by planner calls that never see a candidate (test-first, as CodeT
 * and AlphaCode), red-flagged like any answer (malformed, oversized, not a test file, outside the
 * leaf's files, a command that does not run it) and voted first-to-ahead-by-k over its normalised
 * text. The winner is run on `base`, the tree the candidates start from: it must fail there (a test
 * that passes without the code proves nothing, and is discarded). Kept, every candidate must pass
 * it beside the planned check ({@link acceptanceFlag}). Only where checks run (off with
 * `--no-checks`) and the planner writes tests. The vote and its outcome are saved on the node, so
 * a resume neither asks again nor reruns what is known.
 */
export async function voteAcceptanceTest(
  ctx: RunContext,
  n: TreeNode,
  base: string,
): Promise<void> {
  const propose = ctx.planner.proposeTest?.bind(ctx.planner);
  if (propose === undefined || !checksRun(ctx.run)) return;
  const state = (n.acceptanceTest ??= { vote: { attempt: 0, draws: [], ballots: [] } });
  if (state.status !== undefined) return;
  const context = nodeContext(ctx, n);
  const scope = scopeOf(ctx, n);
  const outcome = await exactVote(ctx, n, 'acceptance-test', state.vote, async (slot) => {
    const sample = parseTestAnswer(
      await counted(
        n,
        propose(context, { slot, ...plannerSampling(ctx, 'worker'), signal: ctx.signal }),
        'test',
      ),
    );
    if (!sample.ok) return { ok: false, flags: sample.flags };
    const test = sample.value.test;
    if (test === null) return { ok: true, key: NO_TEST, value: null, summary: sample.value.reason };
    const checked = testAnswerFlags(test, scope, (path) => !writtenElsewhere(ctx, n, path));
    return checked.ok
      ? { ok: true, key: testKey(checked.test), value: checked.test }
      : ({ ok: false, flags: checked.flags } satisfies DrawResult);
  });
  const rivals = tally(state.vote.draws).filter((c) => c.key !== NO_TEST).length;
  if (outcome.status !== 'decided' && state.doubted === undefined && rivals >= 2) {
    // No candidate to choose with yet: they choose once the code's vote has drawn them.
    state.deferred = true;
    return settle(
      ctx,
      n,
      'none',
      `No acceptance test yet: its vote did not settle (${outcome.votes} : ${outcome.runnerUpVotes}); once the code's vote has drawn candidates, they choose between its leading tests. The planned check decides until then.`,
    );
  }
  const agreed =
    outcome.status !== 'decided' && state.doubted !== undefined
      ? await agreedWithCode(ctx, n, state, base)
      : undefined;
  const test = outcome.status === 'decided' ? winningTest(state.vote) : agreed?.test;
  if (test === undefined) {
    const reason =
      outcome.status !== 'decided'
        ? `its vote did not settle (${outcome.votes} : ${outcome.runnerUpVotes})${state.doubted === undefined ? '' : `, and ${noneChosen(ctx, n)}`}`
        : 'the voters found no behaviour in the criteria to test';
    return settle(ctx, n, 'none', `No acceptance test: ${reason}; the planned check decides.`);
  }
  const result = await testOn(ctx, base, test);
  state.base = result;
  if (result.ok)
    return settle(
      ctx,
      n,
      'discarded',
      `Acceptance test ${test.path} discarded: it passes without the code, so it proves nothing; the planned check decides.`,
    );
  const beside =
    scope.length > 0 && !inScope(test.path, scope)
      ? " It is outside the subtask's files, none of which is a test file: it gates the candidates and is not committed."
      : '';
  return settle(
    ctx,
    n,
    'kept',
    `Acceptance test ${test.path} (\`${test.command}\`): ${agreed === undefined ? 'voted from the criteria' : `voted from the criteria; its vote, widened when a candidate failed it, did not settle, and ${chosenBy(agreed.by, agreed.said)}`}, fails without the code; every candidate must pass it.${beside}`,
  );
}

/**
 * Whether a node of the tree other than `n` and its ancestors lists `path` among its files (or
 * shares it): a subtask that writes it, now or once its node is split.
 */
function writtenElsewhere(ctx: RunContext, n: TreeNode, path: string): boolean {
  const line = new Set<string>();
  for (
    let p: TreeNode | undefined = n;
    p !== undefined;
    p = p.parentId === null ? undefined : ctx.run.nodes[p.parentId]
  )
    line.add(p.id);
  return Object.values(ctx.run.nodes).some(
    (other) =>
      !line.has(other.id) &&
      other.files.length + (other.shared?.length ?? 0) > 0 &&
      inScope(path, [...other.files, ...(other.shared ?? [])]),
  );
}

async function settle(
  ctx: RunContext,
  n: TreeNode,
  status: 'kept' | 'discarded' | 'none' | 'dropped' | 'contested',
  reason: string,
): Promise<void> {
  const state = n.acceptanceTest;
  if (state === undefined) return;
  state.status = status;
  state.reason = reason;
  await ctx.save(n);
  ctx.emit({ type: 'acceptance-test', nodeId: n.id, status, reason });
}

export { keptTest };

/**
 * The winning candidate's `tree` with the leaf's kept acceptance test written in, so the leaf's
 * result carries its test (later checks and merges can run it). A candidate that wrote a file at
 * the test's path keeps its own (said in the state and the commit). The test's path was confined
 * to the leaf's files when it was voted (`testAnswerFlags`), or, for a leaf whose files hold no test
 * file, put outside them where no other subtask writes: such a test is not committed (`gate`). Its
 * content is data, never run here.
 * Returns the tree to commit and a line for the commit's body.
 */
export async function withKeptTest(
  ctx: RunContext,
  n: TreeNode,
  tree: string,
): Promise<{ tree: string; note: string }> {
  const test = keptTest(n);
  const state = n.acceptanceTest;
  if (test === undefined || state === undefined) return { tree, note: '' };
  const scope = scopeOf(ctx, n);
  if (scope.length > 0 && !inScope(test.path, scope)) {
    // A leaf whose files hold no test file: its test was put beside them, and is not its to commit.
    state.committed = 'gate';
    return {
      tree,
      note: `The acceptance test voted from the criteria, ${test.path} (\`${test.command}\`), is outside this subtask's files: it gated the candidates and is not committed.`,
    };
  }
  const [theirs] = await ctx.workspace.readFiles(tree, [test.path]);
  state.committed = (theirs?.content ?? null) === null ? 'added' : 'theirs';
  return state.committed === 'theirs'
    ? {
        tree,
        note: `The acceptance test voted from the criteria is at ${test.path}, which this change writes itself: its own file is committed.`,
      }
    : {
        tree: await ctx.workspace.treeWithEdits(tree, [{ path: test.path, content: test.content }]),
        note: `With the acceptance test voted from the criteria: ${test.path} (\`${test.command}\`).`,
      };
}

/**
 * The red flag of a candidate (its `tree`) that fails its leaf's kept acceptance test, run in the
 * sandbox on the candidate's tree with the test file written in, and how it failed (`failure`:
 * the digest `testContest` groups by); undefined when it passes or the leaf has none.
 * The test is not part of the candidate: the winner's commit adds it ({@link withKeptTest}).
 */
export async function acceptanceFlag(
  ctx: RunContext,
  n: TreeNode,
  tree: string,
): Promise<{ readonly flag: RedFlag; readonly failure: string } | undefined> {
  const test = keptTest(n);
  if (test === undefined || !checksRun(ctx.run)) return undefined;
  const { result, output } = await testOnWhole(ctx, tree, test);
  return result.ok
    ? undefined
    : {
        flag: {
          rule: TEST_FAILED,
          message: `The acceptance test voted from the criteria, \`${test.command}\`, failed: ${failureExcerpt(result.output)}`,
        },
        failure: failureDigest(output),
      };
}

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
    await settle(
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
  await settle(
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
  await settle(
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
  await settle(
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
  await settle(
    ctx,
    n,
    'dropped',
    `Acceptance test dropped: all ${failed.length} candidates that passed the planned check failed it, so the test is more likely wrong than they are; the planned check decides.`,
  );
  return true;
}
