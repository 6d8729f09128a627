import { isMakerFile } from '../../core/candidate-policy.js';
import { MakerError } from '../../core/errors.js';
import { clip } from '../../core/limits.js';
import { inScope, normalizeRepoPath } from '../../core/paths.js';
import type { Draw, TreeNode, VoteOutcome, VoteRecord } from '../../core/tree/schema.js';
import type { BallotSpec } from '../vote/ballots.js';
import type { WorkerTask } from '../../ports/worker.js';
import { codeCandidate } from './candidate.js';
import { askPerson, candidateTree } from './code-question.js';
import { workerHooks } from './worker-hooks.js';
import { ballotDraw } from '../split/decompose.js';
import { branchName, runDate } from '../run/naming.js';
import { nodeContext, scopeOf } from '../context/node-context.js';
import { outward } from '../run/redaction.js';
import type { RunContext } from '../run/run-context.js';
import { candidateVote, tally, type CandidateVoteOptions } from '../vote/votes.js';
import { landedMember } from '../vote/text-vote.js';
import { ballotQuestion } from '../../core/voting/criteria.js';
import { plannerFor } from '../vote/node-planner.js';
import { commitMessage } from '../../core/commit-message.js';
import { chooser } from '../../core/view/display.js';
import { sampleCounts } from '../../core/view/summary.js';
import { dropBadEvidence, screenReopened } from '../compose/reopen-screen.js';
import { candidatesFailure, integrationFailure, traceFailure, untraced } from '../compose/trace.js';
import { keptTest, voteAcceptanceTest, withKeptTest } from '../checks/acceptance-test.js';
import {
  afterDoubt,
  chooseDeferredTest,
  revisitTest,
  contestTest,
  doubtTest,
  dropFailingTest,
} from '../checks/acceptance-doubt.js';
import { testContest } from '../../core/voting/test-contest.js';
import { sayPooling, voteProbe } from '../checks/probe.js';

export { candidateTree } from './code-question.js';

/**
 * Votes among code candidates for `record`, and settles an undecided vote with a person: pick a
 * candidate, or veto (resample, or split the node further). Returns the winning draw, or
 * `split` when the person asked to decompose further. With GitHub, the candidates of that question
 * are pushed as commits on `where.parent` (the task's base commit; an integration's base is a
 * merge's tree, and its candidates go on the node's own commit).
 */
export async function voteOnCode(
  ctx: RunContext,
  n: TreeNode,
  record: VoteRecord,
  vote: string,
  task: WorkerTask,
  scope: readonly string[],
  where: {
    /** The commit a person's candidates are pushed on (default: the task's base commit). */
    readonly parent?: string;
    /** An integration's merge (its key in `n.integrations`): a failure there may be traced upstream. */
    readonly mergeKey?: string;
  } = {},
): Promise<Draw | 'split'> {
  const { parent = task.baseCommit, mergeKey } = where;
  for (;;) {
    // A kill during a doubted test's vote: the code's vote acts on its outcome now.
    if (vote === 'patch') await afterDoubt(ctx, n, record);
    const attempt = record.attempt;
    const ballot = codeBallot(ctx, n, vote, task, attempt);
    const outcome: VoteOutcome = await candidateVote(ctx, n, vote, record, {
      ...codeDraws(ctx, n, record, vote, task, scope),
      ballot,
    });
    if (vote === 'patch' && (await testChanged(ctx, n, record, task.baseCommit))) continue;
    const classes = tally(record.draws);
    // The judges' favourite first: `--hitl auto` takes it, never the order samples arrived in.
    const favourite = classes.findIndex((c) => c.key === outcome.key);
    if (favourite > 0) classes.unshift(...classes.splice(favourite, 1));
    if ((outcome.status === 'decided' || outcome.status === 'human') && outcome.key !== undefined) {
      // A behaviour pooled texts that differ: which of them lands is voted among them.
      const winner = await landedMember(ctx, n, vote, record, ballot, outcome.key);
      if (winner !== undefined) return winner;
    }
    const failed = classes.length === 0 ? await whyAllFailed(ctx, n, record, vote, mergeKey) : {};
    if (failed === 'again') continue;
    const question = { vote, attempt, task, parent, outcome, classes, ballot, bound: failed.bound };
    const answer = await askPerson(ctx, n, record, question);
    if (answer !== 'resample') return answer;
  }
}

/** How the judges of a code vote see a candidate (its diff and its check) and cast a ballot. */
function codeBallot(
  ctx: RunContext,
  n: TreeNode,
  vote: string,
  task: WorkerTask,
  attempt: number,
): BallotSpec {
  // The task the candidates answer: an integration's own, not the node's it composes.
  const planner = plannerFor(ctx, n, task.context, attempt * 1000);
  return {
    question: ballotQuestion(vote === 'patch' ? 'code' : 'integration', task.context.task.title),
    render: async (draw) =>
      `${clip(await ctx.workspace.diff(task.baseCommit, candidateTree(draw)), 6000)}\n\n${checkText(draw)}`,
    cast: async (question, options, slot) =>
      ballotDraw(await planner.castBallot(question, options, slot)),
  };
}

/** How a code vote draws: the worker's candidates, paying for themselves, stopped by a contested test. */
function codeDraws(
  ctx: RunContext,
  n: TreeNode,
  record: VoteRecord,
  vote: string,
  task: WorkerTask,
  scope: readonly string[],
): Omit<CandidateVoteOptions, 'ballot'> {
  const attempt = record.attempt;
  return {
    produce: async (slot, started, resumed, first) => {
      const hooks = workerHooks(ctx, n, `${vote}-${attempt}`, slot, started, resumed);
      const result = await codeCandidate(ctx, n, task, attempt * 1000 + slot, scope, hooks, first);
      if (vote === 'patch' && !result.ok) {
        const more = wanted(result.needsFiles ?? [], scope);
        // Planned again with them, not discarded (see solveLeaf).
        if (more.length > 0 && record.attempt < MAX_REPLANS) throw new NeedsFilesError(more);
      }
      return vote === 'patch' ? screenReopened(ctx, n, task.baseCommit, result) : result;
    },
    paysItself: true,
    // A worker that limits itself takes no paid slot for its run.
    claimsFirst: ctx.worker.limitsItself !== true,
    // Candidates that fail the acceptance test alike, k more texts than pass it: no more are drawn.
    ...(vote === 'patch' && keptTest(n) !== undefined
      ? { stop: (draws) => testContest(draws, record.k ?? ctx.run.config.k) !== undefined }
      : {}),
  };
}

/** Whether the leaf's acceptance test changed after its code's vote, so that the vote starts again. */
async function testChanged(
  ctx: RunContext,
  n: TreeNode,
  record: VoteRecord,
  base: string,
): Promise<boolean> {
  // A candidate failed the test alone: the test's vote widens, and a changed test starts this one again.
  if (await doubtTest(ctx, n, record, base)) return true;
  // A test vote that did not settle: the candidates drawn choose its test, and are drawn again.
  if (await chooseDeferredTest(ctx, n, record, base)) return true;
  // A test `--hitl auto` took on a coin: the candidates drawn under it choose again, once.
  if (await revisitTest(ctx, n, record, base)) return true;
  return contestTest(ctx, n, record);
}

/**
 * Every candidate failed: a cause found upstream is reopened there (thrown), not split here.
 * `again` when a dropped test or bad evidence starts the vote over; else why no earlier subtask
 * was reopened, when the bounds stopped it.
 */
async function whyAllFailed(
  ctx: RunContext,
  n: TreeNode,
  record: VoteRecord,
  vote: string,
  mergeKey: string | undefined,
): Promise<'again' | { bound?: string | undefined }> {
  let bound: string | undefined;
  if (vote === 'patch') {
    if ((await dropFailingTest(ctx, n, record)) || (await dropBadEvidence(ctx, n, record)))
      return 'again';
    const failure = candidatesFailure(ctx, n, record);
    const reopen = failure === undefined ? undefined : await traceFailure(ctx, failure);
    if (reopen !== undefined) throw reopen;
    bound = failure === undefined ? undefined : untraced(ctx, failure);
  }
  if (mergeKey !== undefined) {
    // Every reconciliation failed the checks that passed below: a merged result may be the cause.
    const failure = integrationFailure(ctx, n, record, mergeKey);
    const reopen = failure === undefined ? undefined : await traceFailure(ctx, failure);
    if (reopen !== undefined) throw reopen;
    bound = failure === undefined ? undefined : untraced(ctx, failure);
  }
  return { bound };
}

/**
 * A worker that cannot do its task without writing paths outside its list asked for them
 * (`needsFiles`): its node is planned again with them instead of its answer being discarded.
 */
class NeedsFilesError extends MakerError {
  override readonly name = 'NeedsFilesError';
  constructor(readonly paths: readonly string[]) {
    super('needs-files', `A worker needs files outside its list: ${paths.join(', ')}.`);
  }
}

/** Times a node's file list is widened at its workers' request before such requests are only red flags. */
const MAX_REPLANS = 2;

/** The canonical, safe paths among `asked` that `scope` does not cover yet (none past the list's cap). */
function wanted(asked: readonly string[], scope: readonly string[]): string[] {
  const paths = [
    ...new Set(
      asked.flatMap((p) => {
        const normal = normalizeRepoPath(p);
        return normal.ok && !isMakerFile(normal.path) && !inScope(normal.path, scope)
          ? [normal.path]
          : [];
      }),
    ),
  ];
  return scope.length === 0 || scope.length + paths.length > 50 ? [] : paths;
}

/**
 * Samples, votes and commits a leaf on its branch, from `base`. A worker that asks for files
 * outside the leaf's list sends it back to planning: its list is widened with them, and a fresh
 * vote starts (the paid draws stay counted).
 */
export async function solveLeaf(
  ctx: RunContext,
  n: TreeNode,
  base: string,
): Promise<'done' | 'split'> {
  const branch = branchName(ctx.run.id, n.id);
  const task: WorkerTask = { context: nodeContext(ctx, n), baseCommit: base, branch };
  await voteAcceptanceTest(ctx, n, base);
  await voteProbe(ctx, n, base);
  const record = (n.leaf ??= { attempt: 0, draws: [], ballots: [] });
  let winner: Draw | 'split';
  try {
    winner = await voteOnCode(ctx, n, record, 'patch', task, scopeOf(ctx, n));
  } catch (error) {
    if (!(error instanceof NeedsFilesError)) throw error;
    const own = scopeOf(ctx, n).filter((p) => !(n.shared ?? []).includes(p));
    n.files = [...new Set([...own, ...error.paths])];
    n.leaf = {
      attempt: record.attempt + 1,
      draws: [],
      ballots: [],
      retired: sampleCounts(record),
    };
    await ctx.save(n);
    return solveLeaf(ctx, n, base);
  }
  if (winner === 'split') {
    n.kind = 'branch';
    n.leaf = n.acceptanceTest = n.probe = undefined;
    await ctx.save(n);
    return 'split';
  }
  sayPooling(ctx, n, record);
  const { tree, note } = await withKeptTest(ctx, n, candidateTree(winner));
  const valid = record.draws.filter((d) => d.status === 'valid').length;
  const votes = tally(record.draws).find((c) => c.key === winner.key)?.votes ?? 0;
  const trailers = [
    `Maker-Run: ${ctx.run.id}`,
    `Maker-Node: ${n.id}`,
    `Maker-Votes: ${votes} of ${valid} valid (${record.draws.length} drawn, k=${ctx.run.config.k}${record.outcome?.status === 'human' ? `, ${chooser(record.outcome)}` : ''})`,
    `Maker-Worker: ${ctx.worker.id}${winner.externalId === undefined ? '' : ` session ${winner.externalId}`}`,
  ];
  const message = outward(
    ctx,
    commitMessage(ctx.run.config, {
      subject: n.title,
      body: `${winner.summary ?? n.description}${note === '' ? '' : `\n\n${note}`}`,
      trailers,
    }),
  );
  const commit = await ctx.workspace.commit({
    tree,
    parents: [base],
    message,
    date: runDate(ctx.run),
  });
  await moveBranch(ctx, branch, commit, base);
  n.commit = commit;
  n.status = 'done';
  await ctx.save(n);
  ctx.emit({ type: 'commit-end', nodeId: n.id, branch, commit });
  return 'done';
}

/** Moves a node branch from `from` to `to`, idempotently (a resumed run may find it moved already). */
export async function moveBranch(
  ctx: RunContext,
  branch: string,
  to: string,
  from: string,
): Promise<void> {
  const current = await ctx.workspace.resolve(branch);
  if (current !== to)
    try {
      await ctx.workspace.setBranch(branch, to, current === undefined ? null : from);
    } catch (error) {
      // Someone else (a worker publishing the same branch) may have put it exactly there meanwhile.
      if ((await ctx.workspace.resolve(branch)) !== to) throw error;
    }
  // Also when it was there already: a resumed run may not have pushed it before it stopped.
  ctx.publish?.(branch, to);
}

/** What a judge is told of a candidate's check: its command and result, or that none ran. */
function checkText(draw: Draw): string {
  const check = draw.check;
  if (check === undefined) return 'Check: none ran on this change.';
  const tail = check.output.trim().slice(-1500);
  return `Check \`${check.command}\`: ${check.ok ? 'passed' : 'failed'}${tail === '' ? '.' : `, its output ending:\n${tail}`}`;
}
