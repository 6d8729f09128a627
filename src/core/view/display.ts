import { voteRecords } from '../tree/nodes.js';
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

export function displayStatus(run: Run, n: TreeNode, waiting: ReadonlySet<string>): DisplayStatus {
  if (waiting.has(n.id)) return 'waiting';
  // The root of a vetoed run is built but not landed: not a green "done".
  if (n.id === run.rootId && run.status === 'vetoed') return 'vetoed';
  if (n.status === 'done') return 'done';
  if (n.status === 'failed') return 'failed';
  if (n.status === 'pending') return 'pending';
  if (run.status === 'failed' || run.status === 'cancelled') return 'stopped';
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
  const counts = new Map<string, number>();
  for (const d of draws)
    if (d.status === 'valid' && d.key !== undefined)
      counts.set(d.key, (counts.get(d.key) ?? 0) + 1);
  return [...counts.values()].sort((a, b) => b - a);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Who settled a vote a person was asked about: a person, or the run's `--hitl auto` policy. */
export function chooser(outcome: { readonly auto?: true | undefined }): string {
  return outcome.auto === true ? 'chosen automatically (--hitl auto)' : 'chosen by a person';
}

/**
 * A vote's tally as people read it: `3 : 0`, `4 : 2 after 5 judge ballots` (the ballots' count once
 * judges decided), `chosen by a person`; for a vote under way, the leading classes so far.
 */
export function tallyText(record: VoteRecord | undefined): string | null {
  if (record === undefined) return null;
  const ballots = record.ballots.filter((b) => b.status !== 'started').length;
  const after = ballots > 0 ? ` after ${plural(ballots, 'judge ballot')}` : '';
  const o = record.outcome;
  if (o === undefined) {
    const votes = classVotes(record.draws);
    if (votes.length === 0) return null;
    return `${votes[0] ?? 0} : ${votes[1] ?? 0}${after}`;
  }
  if (o.status === 'human') return `${chooser(o)} (${o.votes} : ${o.runnerUpVotes})`;
  return `${o.votes} : ${o.runnerUpVotes}${after}${o.status === 'undecided' ? ', undecided' : ''}`;
}

/** Why a vote ended as it did, in one sentence: votes, ballots and red flags. */
export function outcomeText(record: VoteRecord, k: number): string {
  const settled = record.draws.filter((d) => d.status !== 'started');
  const flagged = settled.filter((d) => d.status === 'flagged').length;
  const drawn = `${plural(settled.length, 'sample')} drawn, ${flagged} red-flagged`;
  const ballots = record.ballots.filter((b) => b.status !== 'started').length;
  const o = record.outcome;
  if (o === undefined) return `In progress: ${drawn}.`;
  const best = classVotes(record.draws);
  switch (o.status) {
    case 'human':
      return o.auto === true
        ? `Chosen automatically (--hitl auto) after the vote did not settle (${drawn}).`
        : `A person chose it after the vote did not settle (${drawn}).`;
    case 'undecided':
      return `Undecided at ${o.votes} : ${o.runnerUpVotes} (${drawn}${ballots > 0 ? `, ${plural(ballots, 'judge ballot')}` : ''}): a person is asked.`;
    case 'decided':
      return ballots > 0
        ? `The candidates disagreed (best ${best[0] ?? 0} : ${best[1] ?? 0}); judges chose it ${o.votes} : ${o.runnerUpVotes} in ${plural(ballots, 'ballot')}, ahead by k = ${k} (${drawn}).`
        : `It won ${o.votes} : ${o.runnerUpVotes}, ahead by k = ${k} (${drawn}).`;
  }
}

/** Red flags on every vote of a node, counted by rule (rules in alphabetical order). */
export function flagCounts(n: TreeNode): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of voteRecords(n))
    for (const d of [...r.draws, ...r.ballots])
      for (const f of d.flags) counts[f.rule] = (counts[f.rule] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

/** Where a person can open an external worker session, when the worker has a web page for it. */
export function sessionUrl(worker: Run['config']['worker'], id: string): string | undefined {
  return worker === 'jules'
    ? `https://jules.google.com/session/${encodeURIComponent(id)}`
    : undefined;
}
