import { voteRecords } from '../tree/nodes.js';
import { voteClasses } from '../voting/classes.js';
import { raisedBecause } from '../voting/adaptive-k.js';
import type { Draw, Run, TreeNode, VoteRecord } from '../tree/schema.js';

/**
 * How a node looks to a person watching the run: its lifecycle, refined by what its current vote is
 * doing. `flagged`: its latest sample was red-flagged and is being redrawn; `waiting`: a question
 * about it waits for a person; `stopped`: the run ended (failed or cancelled) before the node did;
 * `vetoed`: the root of a run whose result a person vetoed.
 */
export const DISPLAY_STATUSES = [
  'pending',
  'splitting',
  'sampling',
  'voting',
  'flagged',
  'composing',
  'waiting',
  'done',
  'vetoed',
  'stopped',
  'failed',
] as const;
export type DisplayStatus = (typeof DISPLAY_STATUSES)[number];

/** What each display status means, for legends. */
export const DISPLAY_MEANING: Readonly<Record<DisplayStatus, string>> = {
  pending: 'not started',
  splitting: 'deciding whether and how to split',
  sampling: 'drawing candidate changes',
  voting: 'judges are casting ballots',
  flagged: 'its latest sample was red-flagged and is being redrawn',
  composing: 'merging its children',
  waiting: 'waiting for a person',
  done: 'done',
  vetoed: 'the result was vetoed: the default branch was left untouched',
  stopped: 'the run stopped before this node finished',
  failed: 'failed',
};

/** Colours per display status (fill, stroke), shared by every MAKER picture of a run. */
export const STATUS_COLOURS: Readonly<Record<DisplayStatus, readonly [string, string]>> = {
  pending: ['#eceff1', '#90a4ae'],
  splitting: ['#e3f2fd', '#1e88e5'],
  sampling: ['#fff8e1', '#f9a825'],
  voting: ['#f3e5f5', '#8e24aa'],
  flagged: ['#ffebee', '#e53935'],
  composing: ['#e0f7fa', '#00838f'],
  waiting: ['#fff3e0', '#ef6c00'],
  done: ['#e8f5e9', '#2e7d32'],
  vetoed: ['#fce4ec', '#ad1457'],
  stopped: ['#efebe9', '#6d4c41'],
  failed: ['#ffcdd2', '#b71c1c'],
};

/** The vote a node is working on now (or last worked on), by its lifecycle. */
export function currentRecord(n: TreeNode): VoteRecord | undefined {
  switch (n.status) {
    case 'deciding':
      return n.minimal;
    case 'splitting':
      return n.split ?? n.minimal;
    case 'sampling':
      return n.leaf;
    case 'composing':
      return Object.values(n.integrations).find((r) => r.outcome === undefined);
    default:
      return undefined;
  }
}

/** The vote that best describes a node: its candidates (a leaf) or its split (a branch). */
export function mainRecord(n: TreeNode): VoteRecord | undefined {
  return n.leaf ?? n.split ?? n.minimal;
}

/** Nodes a pending question is about. */
export function waitingNodes(run: Run): Set<string> {
  return new Set(
    run.questions
      .filter((q) => q.answer === undefined && q.nodeId !== null)
      .map((q) => q.nodeId as string),
  );
}

/**
 * `live`: whether a process drives the run now. A run saved as running that none drives was
 * interrupted: its unfinished nodes have stopped, whatever their saved status says.
 */
export function displayStatus(
  run: Run,
  n: TreeNode,
  waiting: ReadonlySet<string>,
  live = true,
): DisplayStatus {
  if (waiting.has(n.id)) return 'waiting';
  // The root of a vetoed run is built but not landed: not a green "done".
  if (n.id === run.rootId && run.status === 'vetoed') return 'vetoed';
  // Nor is the root of a run that stopped before landing it (it lands as the run ends, `done`).
  if (
    n.id === run.rootId &&
    n.status === 'done' &&
    run.status !== 'done' &&
    !(run.status === 'running' && live)
  )
    return 'stopped';
  if (n.status === 'done') return 'done';
  if (n.status === 'failed') return 'failed';
  if (n.status === 'pending') return 'pending';
  if (
    run.status === 'failed' ||
    run.status === 'failed-checks' ||
    run.status === 'cancelled' ||
    (run.status === 'running' && !live)
  )
    return 'stopped';
  const record = currentRecord(n);
  if (record !== undefined && record.outcome === undefined) {
    if (record.ballots.length > 0) return 'voting';
    if (latestSettled(record.draws)?.status === 'flagged') return 'flagged';
  }
  if (n.status === 'sampling') return 'sampling';
  if (n.status === 'composing') return 'composing';
  return 'splitting';
}

/** The settled draw with the highest slot (draws settle roughly in slot order). */
function latestSettled(draws: readonly Draw[]): Draw | undefined {
  for (let i = draws.length - 1; i >= 0; i--) {
    const d = draws[i];
    if (d !== undefined && d.status !== 'started') return d;
  }
  return undefined;
}

/** Valid votes per class, most first. */
function classVotes(draws: readonly Draw[]): number[] {
  return voteClasses(draws).map((c) => c.votes);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Who settled a vote a person was asked about: a person, or the run's `--hitl auto` policy. */
export function chooser(outcome: { readonly auto?: true | undefined }): string {
  return outcome.auto === true ? 'chosen automatically (--hitl auto)' : 'chosen by a person';
}

/**
 * A vote's counts, told apart: the samples' votes (candidates agreeing with the leading and the
 * second class) and, when judges were asked, their ballots. `VoteOutcome.votes` holds the ballots'
 * count once judges decided, so counts a person reads come from the draws and ballots themselves.
 */
export interface VoteCounts {
  /** Valid samples in the leading class and the second class. */
  readonly samples: readonly [number, number];
  /** Valid judge ballots for the leading and the second class, and how many were cast; null without ballots. */
  readonly ballots: {
    readonly lead: number;
    readonly second: number;
    readonly cast: number;
  } | null;
}

export function voteCounts(record: VoteRecord): VoteCounts {
  const samples = classVotes(record.draws);
  const settled = record.ballots.filter((b) => b.status !== 'started').length;
  const ballots = classVotes(record.ballots);
  return {
    samples: [samples[0] ?? 0, samples[1] ?? 0],
    ballots:
      settled === 0 ? null : { lead: ballots[0] ?? 0, second: ballots[1] ?? 0, cast: settled },
  };
}

/**
 * The candidate class the judges' ballots put strictly ahead (its key); none when no judge was
 * asked or their ballots tie (3 : 3 names no choice of theirs).
 */
export function judgesChoice(record: VoteRecord): string | undefined {
  const [first, second] = voteClasses(record.ballots);
  return first !== undefined && first.votes > (second?.votes ?? 0) ? first.key : undefined;
}

/** `judges' ballots 5 : 5` (`tied 5 : 5` when even), or null when no judge was asked. */
export function ballotText(counts: VoteCounts): string | null {
  const b = counts.ballots;
  if (b === null) return null;
  return `judges' ballots ${b.lead === b.second ? 'tied ' : ''}${b.lead} : ${b.second}`;
}

/** `2 : 1 sample votes; judges' ballots tied 5 : 5`: sample votes and ballots never mixed. */
export function countsText(counts: VoteCounts): string {
  const [lead, second] = counts.samples;
  const ballots = ballotText(counts);
  return `${lead} : ${second} sample votes${ballots === null ? '' : `; ${ballots}`}`;
}

/** Short, for boxes: `3 : 0` (the samples' votes), `2 : 2; ballots 4 : 2` when judges were asked. */
function shortCounts(counts: VoteCounts): string {
  const b = counts.ballots;
  return `${counts.samples[0]} : ${counts.samples[1]}${b === null ? '' : `; ballots ${b.lead} : ${b.second}`}`;
}

/**
 * A vote's tally as people read it: `3 : 0` (the samples' votes), `2 : 2; ballots 4 : 2` (the
 * judges' ballots apart from the samples), `chosen by a person (2 : 1; ballots 5 : 5)`; for a vote
 * under way, the leading classes so far.
 */
export function tallyText(record: VoteRecord | undefined): string | null {
  if (record === undefined) return null;
  const counts = voteCounts(record);
  const o = record.outcome;
  if (o === undefined) {
    if (counts.samples[0] === 0 && counts.ballots === null) return null;
    return shortCounts(counts);
  }
  if (o.status === 'human') return `${chooser(o)} (${shortCounts(counts)})`;
  return `${shortCounts(counts)}${o.status === 'undecided' ? ', undecided' : ''}`;
}

/**
 * `k 2 → 4` when a narrow win raised a vote's k above the run's `k` (`core/voting/adaptive-k.ts`),
 * else null: the k a person reads next to its tally.
 */
export function raisedKText(record: VoteRecord | undefined, k: number): string | null {
  return record?.k === undefined || record.k === k ? null : `k ${k} → ${record.k}`;
}

/** Why a vote ended as it did, in one sentence: votes, ballots and red flags. */
export function outcomeText(record: VoteRecord, runK: number): string {
  // A raised vote that did not settle stands at the k it was decided at.
  const k = record.outcome?.stoodAtK ?? record.k ?? runK;
  const settled = record.draws.filter((d) => d.status !== 'started');
  const flagged = settled.filter((d) => d.status === 'flagged').length;
  const drawn = `${plural(settled.length, 'sample')} drawn, ${flagged} red-flagged`;
  const o = record.outcome;
  if (o === undefined) return `In progress: ${drawn}.`;
  const counts = voteCounts(record);
  const [lead, second] = counts.samples;
  const b = counts.ballots;
  return settledText() + raisedWhy(record, runK);
  function settledText(): string {
    switch (o?.status) {
      case 'human':
        return o.auto === true
          ? `Chosen automatically (--hitl auto) after the vote did not settle (${countsText(counts)}; ${drawn}).`
          : `A person chose it after the vote did not settle (${countsText(counts)}; ${drawn}).`;
      case 'undecided':
        return `Undecided at ${countsText(counts)} (${drawn}${b === null ? '' : `, ${plural(b.cast, 'judge ballot')}`}): a person is asked.`;
      default:
        return b !== null
          ? `The candidates disagreed (${lead} : ${second} sample votes); judges chose it ${b.lead} : ${b.second} in ${plural(b.cast, 'ballot')}, ahead by k = ${k} (${drawn}).`
          : `It won ${lead} : ${second} sample votes, ahead by k = ${k} (${drawn}).`;
    }
  }
}

/** ` k was raised from 2: contested 3 : 1, ….` when it was. */
function raisedWhy(record: VoteRecord, runK: number): string {
  return record.k === undefined
    ? ''
    : ` k was raised from ${runK}${raisedBecause(record.kRaised)}: ${(record.kRaised ?? []).join('; then ')}.${record.outcome?.stoodAtK === undefined ? '' : ` It did not settle at k = ${record.k}: the decision at k = ${record.outcome.stoodAtK} stands.`}`;
}

/** Red flags on every vote of a node, counted by rule (rules in alphabetical order). */
export function flagCounts(n: TreeNode): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of voteRecords(n))
    for (const d of [...r.draws, ...r.ballots])
      for (const f of d.flags) counts[f.rule] = (counts[f.rule] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}
