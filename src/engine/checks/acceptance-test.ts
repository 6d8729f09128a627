import {
  keptTest,
  NO_TEST,
  testAnswerFlags,
  testKey,
  winningTest,
} from '../../core/acceptance-test.js';
import { acceptanceTestFailedRule } from '../../core/red-flags/index.js';
import type { TreeNode } from '../../core/tree/schema.js';
import type { RedFlag } from '../../core/voting/types.js';
import { failureDigest } from '../../core/voting/test-contest.js';
import { inScope } from '../../core/paths.js';
import { checksRun, failureExcerpt } from './checks.js';
import { agreedWithCode, chosenBy, noneChosen, testOn, testOnWhole } from './test-agreement.js';
import { parseTestAnswer } from '../vote/parse.js';
import { nodeContext, scopeOf } from '../context/node-context.js';
import type { RunContext } from '../run/run-context.js';
import { plannerFor } from '../vote/node-planner.js';
import { exactVote, tally, type DrawResult } from '../vote/votes.js';

/** The red-flag rule of a candidate that fails its leaf's acceptance test. */
export const TEST_FAILED = acceptanceTestFailedRule.id;

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
  const propose = plannerFor(ctx, n, nodeContext(ctx, n)).proposeTest;
  if (propose === undefined || !checksRun(ctx.run)) return;
  const state = (n.acceptanceTest ??= { vote: { attempt: 0, draws: [], ballots: [] } });
  if (state.status !== undefined) return;
  const scope = scopeOf(ctx, n);
  const outcome = await exactVote(ctx, n, 'acceptance-test', state.vote, async (slot) => {
    const sample = parseTestAnswer(await propose(slot));
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
    return settleTest(
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
    return settleTest(ctx, n, 'none', `No acceptance test: ${reason}; the planned check decides.`);
  }
  const result = await testOn(ctx, base, test);
  state.base = result;
  if (result.ok)
    return settleTest(
      ctx,
      n,
      'discarded',
      `Acceptance test ${test.path} discarded: it passes without the code, so it proves nothing; the planned check decides.`,
    );
  const beside =
    scope.length > 0 && !inScope(test.path, scope)
      ? " It is outside the subtask's files, none of which is a test file: it gates the candidates and is not committed."
      : '';
  return settleTest(
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

/** Saves a leaf's acceptance test's status and its reason, and says it. */
export async function settleTest(
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
  const [flag] = acceptanceTestFailedRule.check({
    command: test.command,
    ok: result.ok,
    excerpt: result.ok ? '' : failureExcerpt(result.output),
  });
  return flag === undefined ? undefined : { flag, failure: failureDigest(output) };
}
