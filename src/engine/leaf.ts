import { publishCandidates, removeCandidates } from './candidate-branches.js';
import { isMakerFile } from '../core/candidate-policy.js';
import { MakerError } from '../core/errors.js';
import { clip } from '../core/limits.js';
import { inScope, normalizeRepoPath } from '../core/paths.js';
import type { Draw, TreeNode, VoteOutcome, VoteRecord } from '../core/tree/schema.js';
import type { WorkerTask } from '../ports/worker.js';
import { codeCandidate } from './candidate.js';
import { workerHooks } from './worker-hooks.js';
import { atNodeBound, ballotDraw } from './decompose.js';
import {
  branchName,
  nodeContext,
  outward,
  runDate,
  scopeOf,
  type RunContext,
} from './run-context.js';
import {
  AUTO_RESAMPLES,
  candidateVote,
  flagsSaid,
  tally,
  votesSaid,
  type CandidateVoteOptions,
} from './votes.js';
import { landedMember } from './text-vote.js';
import { ballotQuestion } from '../core/voting/criteria.js';
import { plannerFor } from './node-planner.js';
import { commitMessage } from '../core/commit-message.js';
import { chooser, judgesChoice } from '../core/view/display.js';
import { sampleCounts } from './summary.js';
import { dropBadEvidence, screenReopened } from './reopen-screen.js';
import { candidatesFailure, integrationFailure, traceFailure, untraced } from './trace.js';
import { keptTest, voteAcceptanceTest, withKeptTest } from './acceptance-test.js';
import {
  afterDoubt,
  chooseDeferredTest,
  revisitTest,
  contestTest,
  doubtTest,
  dropFailingTest,
} from './acceptance-doubt.js';
import { testContest } from '../core/voting/test-contest.js';
import { sayPooling, voteProbe } from './probe.js';

/**
 * The tree a valid code candidate produces at its base: all the state keeps of it (files written
 * before classes were normalised keep it as the vote key). git holds the tree, so the diff is
 * derived whenever a judge or a person needs to see it.
 */
export function candidateTree(draw: Draw): string {
  return draw.tree ?? draw.key ?? '';
}

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
    // The task the candidates answer: an integration's own, not the node's it composes.
    const context = task.context;
    const title = context.task.title;
    const planner = plannerFor(ctx, n, context, attempt * 1000);
    const ballot: CandidateVoteOptions['ballot'] = {
      question: ballotQuestion(vote === 'patch' ? 'code' : 'integration', title),
      render: async (draw) =>
        `${clip(await ctx.workspace.diff(task.baseCommit, candidateTree(draw)), 6000)}\n\n${checkText(draw)}`,
      cast: async (question, options, slot) =>
        ballotDraw(await planner.castBallot(question, options, slot)),
    };
    const outcome: VoteOutcome = await candidateVote(ctx, n, vote, record, {
      produce: async (slot, started, resumed, first) => {
        const hooks = workerHooks(ctx, n, `${vote}-${attempt}`, slot, started, resumed);
        const result = await codeCandidate(
          ctx,
          n,
          task,
          attempt * 1000 + slot,
          scope,
          hooks,
          first,
        );
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
      ballot,
      // Candidates that fail the acceptance test alike, k more texts than pass it: no more are drawn.
      ...(vote === 'patch' && keptTest(n) !== undefined
        ? { stop: (draws) => testContest(draws, record.k ?? ctx.run.config.k) !== undefined }
        : {}),
    });
    // A candidate failed the test alone: the test's vote widens, and a changed test starts this one again.
    if (vote === 'patch' && (await doubtTest(ctx, n, record, task.baseCommit))) continue;
    // A test vote that did not settle: the candidates drawn choose its test, and are drawn again.
    if (vote === 'patch' && (await chooseDeferredTest(ctx, n, record, task.baseCommit))) continue;
    // A test `--hitl auto` took on a coin: the candidates drawn under it choose again, once.
    if (vote === 'patch' && (await revisitTest(ctx, n, record, task.baseCommit))) continue;
    if (vote === 'patch' && (await contestTest(ctx, n, record))) continue;
    const classes = tally(record.draws);
    // The judges' favourite first: `--hitl auto` takes it, never the order samples arrived in.
    const favourite = classes.findIndex((c) => c.key === outcome.key);
    if (favourite > 0) classes.unshift(...classes.splice(favourite, 1));
    if ((outcome.status === 'decided' || outcome.status === 'human') && outcome.key !== undefined) {
      // A behaviour pooled texts that differ: which of them lands is voted among them.
      const winner = await landedMember(ctx, n, vote, record, ballot, outcome.key);
      if (winner !== undefined) return winner;
    }
    // Why no earlier subtask was reopened for a failure here, when the bounds stopped it.
    let bound: string | undefined;
    if (classes.length === 0 && vote === 'patch') {
      // Every candidate failed: a cause found upstream is reopened there, not split here.
      if ((await dropFailingTest(ctx, n, record)) || (await dropBadEvidence(ctx, n, record)))
        continue;
      const failure = candidatesFailure(ctx, n, record);
      const reopen = failure === undefined ? undefined : await traceFailure(ctx, failure);
      if (reopen !== undefined) throw reopen;
      bound = failure === undefined ? undefined : untraced(ctx, failure);
    }
    if (classes.length === 0 && mergeKey !== undefined) {
      // Every reconciliation failed the checks that passed below: a merged result may be the cause.
      const failure = integrationFailure(ctx, n, record, mergeKey);
      const reopen = failure === undefined ? undefined : await traceFailure(ctx, failure);
      if (reopen !== undefined) throw reopen;
      bound = failure === undefined ? undefined : untraced(ctx, failure);
    }
    const canSplit = n.depth < ctx.run.config.maxDepth && vote === 'patch' && !atNodeBound(ctx);
    const diffs = await Promise.all(
      classes.map((c) => ctx.workspace.diff(task.baseCommit, candidateTree(c.representative))),
    );
    const questionId = `q-${n.id}-${vote}-${attempt}`;
    const tag = `${vote}-${attempt}`;
    // With GitHub, each candidate is pushed for a person to inspect, with a compare link.
    const links =
      ctx.remote === undefined || ctx.run.questions.some((q) => q.id === questionId)
        ? []
        : await publishCandidates(
            ctx,
            ctx.remote,
            n.id,
            tag,
            parent,
            classes.map((c) => candidateTree(c.representative)),
          );
    const answer = await ctx.ask(
      {
        id: questionId,
        nodeId: n.id,
        kind: 'select',
        prompt:
          classes.length === 0
            ? `Every candidate for "${n.title}" was red-flagged (${record.draws.length} tries).${bound === undefined ? '' : ` ${bound}`} What should MAKER do?`
            : `The votes did not settle "${n.title}" (${votesSaid(record)}; ${outcome.flagged} of ${outcome.draws} candidates red-flagged). Which change should be committed?`,
        options: [
          ...classes.map((c, i) => ({
            id: `candidate-${i + 1}`,
            label: `Candidate ${i + 1} (${c.votes} vote${c.votes === 1 ? '' : 's'}${c.key === judgesChoice(record) ? ", the judges' choice" : ''})`,
            detail: `${links[i] === undefined ? '' : `Compare on GitHub: ${links[i]}\n`}${clip(diffs[i] ?? '', 3000)}`,
          })),
          { id: 'veto-resample', label: 'Veto: resample this subtask' },
          ...(canSplit ? [{ id: 'veto-split', label: 'Veto: split this subtask further' }] : []),
        ],
        context: `Flags: ${flagsSaid(record.draws)}`,
      },
      classes.length > 0
        ? { optionId: 'candidate-1' }
        : canSplit
          ? { optionId: 'veto-split' }
          : // Resampled automatically once: a subtask whose every candidate keeps failing needs a person.
            attempt < AUTO_RESAMPLES
            ? { optionId: 'veto-resample' }
            : undefined,
    );
    if (ctx.remote !== undefined)
      await removeCandidates(ctx, ctx.remote, n.id, tag, classes.length);
    const picked = /^candidate-(\d+)$/.exec(answer.optionId ?? '');
    if (picked !== null) {
      const chosen = classes[Number(picked[1]) - 1];
      if (chosen !== undefined) {
        record.outcome = {
          ...outcome,
          status: 'human',
          ...(answer.auto === true ? { auto: true as const } : {}),
          key: chosen.key,
        };
        await ctx.save(n);
        return (
          (await landedMember(ctx, n, vote, record, ballot, chosen.key)) ?? chosen.representative
        );
      }
    }
    if (answer.optionId === 'veto-split' && canSplit) return 'split';
    // Resample: a fresh vote with new candidate slots; the paid draws stay counted in the node's cost.
    Object.assign(record, {
      attempt: attempt + 1,
      draws: [],
      ballots: [],
      outcome: undefined,
      retired: sampleCounts(record),
    });
    await ctx.save(n);
  }
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
