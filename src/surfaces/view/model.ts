import { z } from 'zod';
import { checkBadge, checksSentence, resultChecksKnown } from '../../core/checks.js';
import { acceptanceTestLine } from '../../core/acceptance-test.js';
import { voteRecords } from '../../core/tree/nodes.js';
import { voteClasses, type VoteClass } from '../../core/voting/classes.js';
import {
  subtaskSchema,
  type Draw,
  type Run,
  type TreeNode,
  type VoteRecord,
} from '../../core/tree/schema.js';
import {
  displayStatus,
  flagCounts,
  mainRecord,
  outcomeText,
  raisedKText,
  tallyText,
  waitingNodes,
} from '../../core/view/display.js';
import { runStanding, type Driver } from '../../core/view/standing.js';
import { sessionUrlOf } from '../../app/workers/index.js';
import { renderSplit } from '../../core/view/split-text.js';
import { summarise } from '../../core/view/summary.js';
import { logText } from './log-text.js';
import type {
  Answering,
  BallotDetail,
  CandidateDetail,
  LogEntry,
  NodeDetail,
  RunListEntry,
  RunSnapshot,
  ViewNode,
  ViewQuestion,
  ViewRun,
  VoteDetail,
} from './protocol.js';
import { candidateDiffs, type CandidateDiff, type DiffOf } from './diffs.js';

/** `live`: whether a process drives the run now (see {@link displayStatus}). */
export function viewNodes(run: Run, live: boolean): ViewNode[] {
  const waiting = waitingNodes(run);
  return Object.values(run.nodes).map((n) => viewNode(run, n, waiting, live));
}

export function viewNode(
  run: Run,
  n: TreeNode,
  waiting: ReadonlySet<string>,
  live: boolean,
): ViewNode {
  const draws = voteRecords(n).flatMap((r) => [...r.draws, ...r.ballots]);
  const sessions = [...new Set(draws.map((d) => d.externalId).filter((id) => id !== undefined))];
  return {
    id: n.id,
    parentId: n.parentId,
    depth: n.depth,
    title: n.title,
    kind: n.kind,
    status: n.status,
    display: displayStatus(run, n, waiting, live),
    tally: withK(tallyText(mainRecord(n)), raisedKText(mainRecord(n), run.config.k)),
    flags: flagCounts(n),
    samples: draws.filter((d) => d.status !== 'started').length,
    branch: n.branch ?? null,
    commit: n.commit ?? null,
    sessions: sessions.map((id) => ({
      id,
      url: sessionUrlOf(run.config.worker)?.(id) ?? null,
    })),
    children: [...n.children],
    checks: checkBadge(run, n) ?? null,
  };
}

/** The run in `dir`, driven now by `driver` (null: by no process). */
export function viewRun(run: Run, dir: string, driver: Driver | null): ViewRun {
  const s = summarise(run);
  const standing = runStanding(run, dir, driver ?? undefined);
  return {
    id: run.id,
    idea: run.idea,
    status: run.status,
    phase: standing.phase,
    standing: standing.label,
    next: standing.next ?? null,
    createdAt: run.createdAt,
    worker: run.config.worker,
    simulated: s.simulated,
    checks: checksSentence(run),
    verified: s.checks.verified,
    checksPending: !resultChecksKnown(run),
    k: run.config.k,
    confidence: run.config.confidence,
    hitl: run.config.hitl,
    defaultBranch: run.config.defaultBranch,
    nodes: s.nodes,
    leaves: s.leaves,
    done: s.done,
    samples: s.samples,
    flagged: s.flagged,
    sessions: s.sessions,
    result:
      run.result === undefined
        ? null
        : {
            rootBranch: run.result.rootBranch,
            finalCommit: run.result.finalCommit,
            landed: run.result.landed,
          },
    error: run.error ?? null,
    waits: s.waits.map((w) => ({ ...w })),
  };
}

export function viewQuestions(run: Run): ViewQuestion[] {
  return run.questions.map((q) => ({
    id: q.id,
    nodeId: q.nodeId,
    kind: q.kind,
    prompt: q.prompt,
    options: q.options.map((o) => ({ ...o })),
    allowText: q.allowText,
    context: q.context ?? null,
    createdAt: q.createdAt,
    answer:
      q.answer === undefined
        ? null
        : {
            ...(q.answer.optionId === undefined ? {} : { optionId: q.answer.optionId }),
            ...(q.answer.text === undefined ? {} : { text: q.answer.text }),
          },
  }));
}

/** Every run of the workspace, `driver` driving whichever of them is running. */
export function runList(
  runs: Readonly<Record<string, Run>>,
  dir: string,
  driver: Driver | null,
): RunListEntry[] {
  return Object.values(runs)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    .map((r) => ({
      id: r.id,
      idea: r.idea,
      status: r.status,
      phase: runStanding(r, dir, driver ?? undefined).phase,
      createdAt: r.createdAt,
    }));
}

/** Everything a page shows of `run` in `dir`, as `answering` (which names its driver) has it. */
export function snapshotOf(
  run: Run,
  runs: Readonly<Record<string, Run>>,
  answering: Answering,
  dir: string,
): RunSnapshot {
  return {
    run: viewRun(run, dir, answering.driver),
    rootId: run.rootId,
    nodes: viewNodes(run, answering.driver !== null),
    questions: viewQuestions(run),
    answering,
    runs: runList(runs, dir, answering.driver),
  };
}

const splitValueSchema = z.object({ subtasks: z.array(subtaskSchema) });

/** A draw's proposal as text: a yes/no, or a split's subtasks. */
function valueText(vote: string, draw: Draw): string | null {
  if (draw.status !== 'valid') return null;
  if (vote === 'minimal') return draw.key === 'yes' ? 'Yes: minimal' : 'No: split it';
  if (vote === 'split') {
    const split = splitValueSchema.safeParse(draw.value);
    return split.success ? renderSplit(split.data) : null;
  }
  return null;
}

/**
 * One node in full: its task, and every vote with each candidate side by side (code candidates
 * with their diff against the node's base, from `diffOf`), the judges' ballots, and why it ended
 * as it did.
 */
export async function nodeDetail(
  run: Run,
  nodeId: string,
  diffOf: DiffOf | undefined,
): Promise<NodeDetail | undefined> {
  const n = run.nodes[nodeId];
  if (n === undefined) return undefined;
  const records: [string, string, VoteRecord | undefined, string | undefined][] = [
    ['Is it minimal?', 'minimal', n.minimal, undefined],
    ['Split', 'split', n.split, undefined],
    ['Candidates', 'patch', n.leaf, n.baseCommit],
    ...Object.entries(n.integrations).map(
      ([i, r]): [string, string, VoteRecord, string | undefined] => [
        `Integration of child ${i} (conflicts in ${r.conflicts.join(', ')})`,
        'integration',
        r,
        n.mergeHeads[Number(i)],
      ],
    ),
  ];
  const votes: VoteDetail[] = [];
  for (const [name, vote, record, base] of records) {
    if (record === undefined) continue;
    // A leaf's winner is shown as it landed (its commit carries its kept acceptance test too).
    const landed = vote === 'patch' ? n.commit : undefined;
    votes.push(await voteDetail(run, name, vote, record, base, diffOf, landed));
  }
  return {
    id: n.id,
    title: n.title,
    description: n.description,
    acceptance: n.acceptance,
    acceptanceTest: acceptanceTestLine(n) ?? null,
    files: n.files,
    clarifications: n.clarifications,
    branch: n.branch ?? null,
    baseCommit: n.baseCommit ?? null,
    commit: n.commit ?? null,
    error: n.error ?? null,
    votes,
  };
}

async function voteDetail(
  run: Run,
  name: string,
  vote: string,
  record: VoteRecord,
  base: string | undefined,
  diffOf: DiffOf | undefined,
  landed?: string,
): Promise<VoteDetail> {
  const classes = voteClasses(record.draws);
  const code = vote === 'patch' || vote === 'integration';
  const cards: Cards = {
    run,
    vote,
    classOfSlot: new Map(classes.flatMap((c) => c.members.map((m) => [m.slot, c] as const))),
    winnerKey: record.outcome?.key,
    landed,
    diffFor: candidateDiffs(run, code ? base : undefined, diffOf),
  };
  return {
    name,
    attempt: record.attempt,
    outcome: record.outcome?.status ?? null,
    why: outcomeText(record, run.config.k),
    candidates: await Promise.all(
      oneCardPerClass(record.draws, cards.classOfSlot).map((d) => candidateDetail(d, cards)),
    ),
    ballots: ballotDetails(record, classes),
    base: code ? (base ?? null) : null,
  };
}

/** What a vote's candidate cards are drawn from. */
interface Cards {
  readonly run: Run;
  readonly vote: string;
  /** A valid draw's class, by its slot. */
  readonly classOfSlot: ReadonlyMap<number, VoteClass>;
  readonly winnerKey: string | undefined;
  /** The commit the winner landed as (a leaf's), shown instead of its tree. */
  readonly landed: string | undefined;
  readonly diffFor: CandidateDiff;
}

/**
 * The draws that get a card: one per class (its members are shown once, with their slots and
 * count), every other draw its own.
 */
function oneCardPerClass(
  draws: readonly Draw[],
  classOfSlot: ReadonlyMap<number, VoteClass>,
): Draw[] {
  const shown = new Set<string>();
  return draws.filter((d) => {
    const own = d.status === 'valid' ? classOfSlot.get(d.slot) : undefined;
    if (own === undefined) return true;
    if (shown.has(own.key)) return false;
    shown.add(own.key);
    return true;
  });
}

/** A candidate's card: its class's slots and votes, whether it won, its session, value and diff. */
async function candidateDetail(d: Draw, cards: Cards): Promise<CandidateDetail> {
  const own = d.status === 'valid' ? cards.classOfSlot.get(d.slot) : undefined;
  const slots = own?.members.map((m) => m.slot) ?? [d.slot];
  const winner = own !== undefined && cards.winnerKey !== undefined && own.key === cards.winnerKey;
  return {
    slot: d.slot,
    slots,
    status: d.status,
    key: d.key ?? null,
    winner,
    votes: own?.votes ?? 0,
    members: own === undefined ? [] : slots,
    flags: d.flags,
    summary: d.summary ?? null,
    session:
      d.externalId === undefined
        ? null
        : {
            id: d.externalId,
            url: sessionUrlOf(cards.run.config.worker)?.(d.externalId) ?? null,
          },
    value: valueText(cards.vote, d),
    diff:
      d.status === 'valid' && d.key !== undefined
        ? await cards.diffFor(
            winner && cards.landed !== undefined ? cards.landed : (d.tree ?? d.key),
            winner,
          )
        : null,
  };
}

/** The judges' ballots, each pick named by the first slot of the class it voted for. */
function ballotDetails(record: VoteRecord, classes: readonly VoteClass[]): BallotDetail[] {
  const firstSlot = new Map(classes.map((c) => [c.key, c.representative.slot]));
  return record.ballots.map((b) => ({
    slot: b.slot,
    status: b.status,
    forSlot: b.key === undefined ? null : (firstSlot.get(b.key) ?? null),
    reason: b.summary ?? null,
    flags: b.flags,
  }));
}

/** One journal record (or engine event) as a line of the page's activity log, in words. */
export function logEntry(record: Readonly<Record<string, unknown>>): LogEntry | undefined {
  const { seq, at, type } = record;
  if (typeof seq !== 'number' || typeof at !== 'string' || typeof type !== 'string')
    return undefined;
  const nodeId = typeof record['nodeId'] === 'string' ? record['nodeId'] : null;
  return { seq, at, type, nodeId, text: logText(record) };
}

/** A tally with the vote's raised k beside it (`3 : 1 · k 2 → 3`). */
function withK(tally: string | null, k: string | null): string | null {
  return k === null ? tally : `${tally ?? ''} · ${k}`;
}
