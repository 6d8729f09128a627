import { publishCandidates, removeCandidates } from './candidate-branches.js';
import { clip } from '../../core/limits.js';
import type { Draw, TreeNode, VoteOutcome, VoteRecord } from '../../core/tree/schema.js';
import type { WorkerTask } from '../../ports/worker.js';
import type { BallotSpec } from '../vote/ballots.js';
import { atNodeBound } from '../split/decompose.js';
import type { RunContext } from '../run/run-context.js';
import { sampleCounts } from '../../core/view/summary.js';
import { landedMember } from '../vote/text-vote.js';
import { AUTO_RESAMPLES, flagsSaid, votesSaid, type ClassTally } from '../vote/votes.js';
import { judgesChoice } from '../../core/view/display.js';

/**
 * The tree a valid code candidate produces at its base: all the state keeps of it (files written
 * before classes were normalised keep it as the vote key). git holds the tree, so the diff is
 * derived whenever a judge or a person needs to see it.
 */
export function candidateTree(draw: Draw): string {
  return draw.tree ?? draw.key ?? '';
}

/** What a person is asked about a code vote that did not settle. */
export interface CodeQuestion {
  readonly vote: string;
  readonly attempt: number;
  readonly task: WorkerTask;
  /** The commit candidates are pushed on, with GitHub. */
  readonly parent: string;
  readonly outcome: VoteOutcome;
  /** The vote's classes, the judges' favourite first. */
  readonly classes: readonly ClassTally[];
  readonly ballot: BallotSpec;
  /** Why no earlier subtask was reopened, when every candidate failed. */
  readonly bound: string | undefined;
}

/**
 * Asks a person to pick a candidate or veto. Returns the chosen draw (its vote recorded as a human
 * choice), `split`, or `resample`: the record started over with fresh slots (saved; the paid
 * draws stay counted in the node's cost).
 */
export async function askPerson(
  ctx: RunContext,
  n: TreeNode,
  record: VoteRecord,
  q: CodeQuestion,
): Promise<Draw | 'split' | 'resample'> {
  const { vote, attempt, classes, outcome } = q;
  const canSplit = n.depth < ctx.run.config.maxDepth && vote === 'patch' && !atNodeBound(ctx);
  const questionId = `q-${n.id}-${vote}-${attempt}`;
  const tag = `${vote}-${attempt}`;
  const answer = await ctx.ask(
    await codeQuestion(ctx, n, record, q, questionId, canSplit),
    classes.length > 0
      ? { optionId: 'candidate-1' }
      : canSplit
        ? { optionId: 'veto-split' }
        : // Resampled automatically once: a subtask whose every candidate keeps failing needs a person.
          attempt < AUTO_RESAMPLES
          ? { optionId: 'veto-resample' }
          : undefined,
  );
  if (ctx.remote !== undefined) await removeCandidates(ctx, ctx.remote, n.id, tag, classes.length);
  const picked = /^candidate-(\d+)$/.exec(answer.optionId ?? '');
  const chosen = picked === null ? undefined : classes[Number(picked[1]) - 1];
  if (chosen !== undefined) {
    record.outcome = {
      ...outcome,
      status: 'human',
      ...(answer.auto === true ? { auto: true as const } : {}),
      key: chosen.key,
    };
    await ctx.save(n);
    return (
      (await landedMember(ctx, n, vote, record, q.ballot, chosen.key)) ?? chosen.representative
    );
  }
  if (answer.optionId === 'veto-split' && canSplit) return 'split';
  Object.assign(record, {
    attempt: attempt + 1,
    draws: [],
    ballots: [],
    outcome: undefined,
    retired: sampleCounts(record),
  });
  await ctx.save(n);
  return 'resample';
}

/** The select question of a code vote: each class with its diff (and, with GitHub, a compare link). */
async function codeQuestion(
  ctx: RunContext,
  n: TreeNode,
  record: VoteRecord,
  { vote, attempt, task, parent, outcome, classes, bound }: CodeQuestion,
  questionId: string,
  canSplit: boolean,
): Promise<Parameters<RunContext['ask']>[0]> {
  const diffs = await Promise.all(
    classes.map((c) => ctx.workspace.diff(task.baseCommit, candidateTree(c.representative))),
  );
  // With GitHub, each candidate is pushed for a person to inspect, with a compare link.
  const links =
    ctx.remote === undefined || ctx.run.questions.some((q) => q.id === questionId)
      ? []
      : await publishCandidates(
          ctx,
          ctx.remote,
          n.id,
          `${vote}-${attempt}`,
          parent,
          classes.map((c) => candidateTree(c.representative)),
        );
  return {
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
  };
}
