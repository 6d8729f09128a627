import { checkMode } from '../../core/checks.js';
import { ballotQuestion } from '../../core/voting/criteria.js';
import { splitKey } from '../../core/voting/equivalence.js';
import { newNode } from '../../core/tree/nodes.js';
import { sampleCounts } from '../../core/view/summary.js';
import { plannerFor } from '../vote/node-planner.js';
import type { TreeNode, VoteOutcome, VoteRecord } from '../../core/tree/schema.js';
import type { NodePlanner } from '../../ports/planner.js';
import { llmReviewRule, missingCheckRule, type ModelResponse } from '../../core/red-flags/index.js';
import {
  parseBallot,
  parseMinimal,
  parseReview,
  parseSplit,
  type SplitAnswer,
} from '../vote/parse.js';
import { nodeContext } from '../context/node-context.js';
import { RunStoppedError } from '../run/engine-errors.js';
import { saveSoon } from '../run/state-saver.js';
import type { RunContext } from '../run/run-context.js';
import {
  AUTO_RESAMPLES,
  candidateVote,
  exactVote,
  flagsSaid,
  tally,
  votesSaid,
  type ClassTally,
  type DrawResult,
} from '../vote/votes.js';
import { judgesChoice } from '../../core/view/display.js';
import { renderSplit } from '../../core/view/split-text.js';

/** Turns a planner response into a vote draw; the parse and red flags decide validity. */
export function ballotDraw(response: ModelResponse): DrawResult {
  const sample = parseBallot(response);
  return sample.ok
    ? {
        ok: true,
        key: sample.value.choice.trim().toUpperCase(),
        value: sample.value.choice,
        summary: sample.value.reason,
      }
    : { ok: false, flags: sample.flags };
}

/**
 * How many nodes each run's tree has (keyed by its `nodes` record): counted once, then kept by
 * the split in {@link decideSplit} (the only place a tree grows), so a decision does not count the whole tree.
 */
const nodeCounts = new WeakMap<object, number>();

function nodeCount(ctx: Pick<RunContext, 'run'>): number {
  let count = nodeCounts.get(ctx.run.nodes);
  if (count === undefined) {
    count = Object.keys(ctx.run.nodes).length;
    nodeCounts.set(ctx.run.nodes, count);
  }
  return count;
}

/** Whether the tree is too near its node bound for any node to be split (a split adds at least 2). */
export function atNodeBound(ctx: Pick<RunContext, 'run'>): boolean {
  return nodeCount(ctx) + 2 > ctx.run.config.maxNodes;
}

/** Whether a node may be solved whole: it carries a check, or checks do not run (a leaf must carry one where they do). */
function canBeLeaf(ctx: Pick<RunContext, 'run'>, n: TreeNode): boolean {
  return n.check !== undefined || checkMode(ctx.run) !== 'on';
}

/**
 * Decides whether a node is minimal: forced at the depth or node-count bound, otherwise a yes/no
 * vote, ahead by k. A node with no check, where checks run, is split without a vote: a leaf must
 * carry a check, and only a split gives its subtasks one. Only the root can lack one (a split's
 * subtasks without checks are red-flagged), when the run has no overall `--check`.
 */
export async function decideMinimal(ctx: RunContext, n: TreeNode): Promise<boolean> {
  const { maxDepth } = ctx.run.config;
  let minimal: boolean;
  // Forced by the depth or decided by a saved vote, the kind comes out the same after a crash; the
  // node count may not (nodes made since the last save are lost with it).
  const byCount = n.depth < maxDepth && atNodeBound(ctx);
  if (n.depth >= maxDepth || byCount) {
    minimal = true;
  } else if (!canBeLeaf(ctx, n)) {
    minimal = false;
  } else {
    const record = (n.minimal ??= { attempt: 0, draws: [], ballots: [] });
    const planner = plannerFor(ctx, n, nodeContext(ctx, n));
    const outcome = await exactVote(ctx, n, 'minimal', record, async (slot) => {
      const sample = parseMinimal(await planner.isMinimal(slot));
      return sample.ok
        ? {
            ok: true,
            key: sample.value.minimal ? 'yes' : 'no',
            value: sample.value.minimal,
            summary: sample.value.reason,
          }
        : { ok: false, flags: sample.flags };
    });
    // Undecided at the cap: the cautious reading is "not minimal yet" while depth allows.
    minimal = outcome.key === 'yes' && outcome.status === 'decided';
  }
  n.kind = minimal ? 'leaf' : 'branch';
  if (byCount) await ctx.save(n);
  else saveSoon(ctx, n);
  ctx.emit({ type: 'node-minimal', nodeId: n.id, minimal });
  return minimal;
}

/**
 * Splits a node by vote: 2k − 1 candidate splits, judge ballots when they disagree, a person when
 * the judges cannot settle it. An ambiguity the winning split reports becomes a clarify question
 * whose answer is fed to this subtree's prompts, and the split is voted again with it.
 */
export async function decideSplit(ctx: RunContext, n: TreeNode): Promise<'split' | 'leaf'> {
  if (n.children.length > 0) return 'split';
  const record = (n.split ??= { attempt: 0, draws: [], ballots: [] });
  const attempt = record.attempt;
  const planner = plannerFor(ctx, n, nodeContext(ctx, n), attempt * 1000);
  const outcome = await candidateVote(ctx, n, 'split', record, {
    produce: (slot) => proposedSplit(ctx, planner, slot),
    ballot: {
      question: ballotQuestion('split', n.title),
      render: (draw) => renderSplit(draw.value as SplitAnswer),
      cast: async (question, options, slot) =>
        ballotDraw(await planner.castBallot(question, options, slot)),
    },
  });
  const classes = tally(record.draws);
  let winnerKey = outcome.key;
  if (outcome.status !== 'decided' || winnerKey === undefined) {
    if (classes.length === 0) {
      if ((await askAllFlagged(ctx, n, record)) === 'whole') return 'leaf';
      return decideSplit(ctx, n);
    }
    winnerKey = await askWhichSplit(ctx, n, record, outcome, classes);
  }
  const winner = classes.find((c) => c.key === winnerKey)?.representative.value as
    SplitAnswer | undefined;
  if (winner === undefined)
    throw new RunStoppedError(
      `The chosen decomposition of node ${n.id} is missing from the state file.`,
    );
  if (winner.ambiguity && n.clarifications.length === 0) {
    await clarify(ctx, n, record, winner.ambiguity);
    return decideSplit(ctx, n);
  }
  return applySplit(ctx, n, winner);
}

/** One candidate split for `slot`: parsed, red-flagged without checks where they run, and reviewed. */
async function proposedSplit(
  ctx: RunContext,
  planner: NodePlanner,
  slot: number,
): Promise<DrawResult> {
  const sample = parseSplit(await planner.proposeSplit(slot));
  if (!sample.ok) return { ok: false, flags: sample.flags };
  const unchecked = ctx.run.config.runChecks ? uncheckedSubtasks(sample.value) : [];
  const missing = missingCheckRule.check({ unchecked });
  if (missing.length > 0) return { ok: false, flags: missing };
  const review = parseReview(
    await planner.reviewCandidate(`Proposed decomposition:\n${renderSplit(sample.value)}`, slot),
  );
  // A malformed review is ignored, never trusted.
  const suspect = llmReviewRule.check({ review, subject: 'decomposition' });
  if (suspect.length > 0) return { ok: false, flags: suspect };
  return { ok: true, key: splitKey(sample.value.subtasks), value: sample.value };
}

/**
 * Every plan red-flagged: new ones are drawn (by `--hitl auto` once), or the node is solved whole
 * where it can be; a person decides past that. `whole`: the node was made a leaf (and saved);
 * `resample`: its split record started over (and saved), to be voted again.
 */
async function askAllFlagged(
  ctx: RunContext,
  n: TreeNode,
  record: VoteRecord,
): Promise<'whole' | 'resample'> {
  const { attempt } = record;
  const whole = canBeLeaf(ctx, n);
  const answer = await ctx.ask(
    {
      id: `q-${n.id}-split-${attempt}-flagged`,
      nodeId: n.id,
      kind: 'select',
      prompt: `Every decomposition proposed for "${n.title}" was red-flagged (${record.draws.length} tries). What should MAKER do?`,
      options: [
        { id: 'resample', label: 'Resample: propose new decompositions' },
        ...(whole ? [{ id: 'whole', label: 'Solve it whole, as one subtask' }] : []),
      ],
      context: `Flags: ${flagsSaid(record.draws)}`,
    },
    attempt < AUTO_RESAMPLES ? { optionId: 'resample' } : undefined,
  );
  if (answer.optionId === 'whole' && whole) {
    n.kind = 'leaf';
    await ctx.save(n);
    return 'whole';
  }
  n.split = { attempt: attempt + 1, draws: [], ballots: [], retired: sampleCounts(record) };
  await ctx.save(n);
  return 'resample';
}

/**
 * A split vote that did not settle: a person (or `--hitl auto`, the judges' favourite) picks a
 * class. Returns its key, recorded on the vote's outcome as a human choice (saved with the split).
 */
async function askWhichSplit(
  ctx: RunContext,
  n: TreeNode,
  record: VoteRecord,
  outcome: VoteOutcome,
  classes: ClassTally[],
): Promise<string | undefined> {
  // The judges' favourite first: `--hitl auto` takes it, never the order samples arrived in.
  const favourite = classes.findIndex((c) => c.key === outcome.key);
  if (favourite > 0) classes.unshift(...classes.splice(favourite, 1));
  const answer = await ctx.ask(
    {
      id: `q-${n.id}-split-${record.attempt}`,
      nodeId: n.id,
      kind: 'select',
      prompt: `The votes did not settle how to split "${n.title}" (${votesSaid(record).replaceAll('candidate', 'split')}). Which decomposition should MAKER use?`,
      options: classes.map((c, i) => ({
        id: `split-${i + 1}`,
        label: `Split ${i + 1} (${c.votes} vote${c.votes === 1 ? '' : 's'}${c.key === judgesChoice(record) ? ", the judges' choice" : ''})`,
        detail: renderSplit(c.representative.value as SplitAnswer),
      })),
    },
    { optionId: 'split-1' },
  );
  const index = Number(/^split-(\d+)$/.exec(answer.optionId ?? '')?.[1] ?? '1') - 1;
  const winnerKey = (classes[index] ?? classes[0])?.key;
  record.outcome = {
    ...outcome,
    status: 'human',
    ...(answer.auto === true ? { auto: true as const } : {}),
    ...(winnerKey === undefined ? {} : { key: winnerKey }),
  };
  return winnerKey;
}

/**
 * The winning split's ambiguity, asked as a clarify question: the answer joins the node's
 * clarifications and its split record starts over (saved), to be voted again with it.
 */
async function clarify(
  ctx: RunContext,
  n: TreeNode,
  record: VoteRecord,
  ambiguity: NonNullable<SplitAnswer['ambiguity']>,
): Promise<void> {
  const { attempt } = record;
  const options = ambiguity.options.map((label, i) => ({ id: `opt-${i + 1}`, label }));
  const answer = await ctx.ask(
    {
      id: `q-${n.id}-clarify-${attempt}`,
      nodeId: n.id,
      kind: 'clarify',
      prompt: ambiguity.question,
      options,
      allowText: true,
      context: `While splitting "${n.title}".`,
    },
    options[0] === undefined
      ? { text: 'No preference: use your best judgement.' }
      : { optionId: options[0].id },
  );
  const text = answer.text ?? options.find((o) => o.id === answer.optionId)?.label ?? '';
  n.clarifications.push({ question: ambiguity.question, answer: text });
  n.split = { attempt: attempt + 1, draws: [], ballots: [], retired: sampleCounts(record) };
  await ctx.save(n);
}

/** Makes `winner`'s subtasks the node's children, or the node a leaf when they would pass the node bound. */
async function applySplit(
  ctx: RunContext,
  n: TreeNode,
  winner: SplitAnswer,
): Promise<'split' | 'leaf'> {
  if (nodeCount(ctx) + winner.subtasks.length > ctx.run.config.maxNodes) {
    // The tree is at its node bound: this node is solved whole instead.
    n.kind = 'leaf';
    await ctx.save(n);
    return 'leaf';
  }
  const prefix = n.parentId === null ? '' : `${n.id}-`;
  let count = nodeCount(ctx);
  n.children = winner.subtasks.map((subtask, index) => {
    const id = `${prefix}${index}`;
    if (ctx.run.nodes[id] === undefined) count += 1;
    ctx.run.nodes[id] = newNode(id, n.id, n.depth + 1, index, subtask);
    return id;
  });
  nodeCounts.set(ctx.run.nodes, count);
  await ctx.save(n);
  ctx.emit({ type: 'node-split', nodeId: n.id, children: n.children });
  return 'split';
}

/** The subtasks of a split without a check, named for the red flag: `2 ("Parse the CSV")`. */
export function uncheckedSubtasks(split: SplitAnswer): string[] {
  return split.subtasks.flatMap((s, i) =>
    s.check === undefined || s.check.trim() === '' ? [`${i + 1} ("${s.title}")`] : [],
  );
}
