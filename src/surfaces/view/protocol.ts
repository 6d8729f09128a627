import type { DisplayStatus } from '../../core/view/display.js';
import type { Driver, RunPhase } from '../../core/view/standing.js';

/**
 * What the view's server sends the page (and what a report inlines). Types only: the page imports
 * this file, and nothing here may pull Node code into it.
 *
 * Server-sent events on `/events`: `snapshot` (a {@link RunSnapshot}, first on every connection),
 * `nodes` ({@link NodesDelta}), `run` ({@link RunDelta}) and `log` ({@link LogEntry}[]).
 */

export interface ViewSession {
  readonly id: string;
  readonly url: string | null;
}

export interface ViewNode {
  readonly id: string;
  readonly parentId: string | null;
  readonly depth: number;
  readonly title: string;
  readonly kind: 'undecided' | 'leaf' | 'branch';
  /** The engine's lifecycle status. */
  readonly status: string;
  readonly display: DisplayStatus;
  /** The node's main vote: `3 : 0`, `4 : 2 after 5 judge ballots`, … */
  readonly tally: string | null;
  /** Red flags on every vote of the node, by rule. */
  readonly flags: Readonly<Record<string, number>>;
  /** Paid draws settled (candidates, ballots, yes/no votes). */
  readonly samples: number;
  readonly branch: string | null;
  readonly commit: string | null;
  readonly sessions: readonly ViewSession[];
  readonly children: readonly string[];
  /** Its checks' badge: `checks ✓ 3/3`, `checks ✗ 1 of 3 failed`, `unverified`; null: none yet. */
  readonly checks: string | null;
}

export interface ViewQuestion {
  readonly id: string;
  readonly nodeId: string | null;
  readonly kind: 'clarify' | 'select' | 'veto';
  readonly prompt: string;
  readonly options: readonly { id: string; label: string; detail?: string | undefined }[];
  readonly allowText: boolean;
  readonly context: string | null;
  readonly createdAt: string;
  readonly answer: { optionId?: string | undefined; text?: string | undefined } | null;
}

export interface ViewRun {
  readonly id: string;
  readonly idea: string;
  /** The state file's status (`running` also for a run whose process died: see `phase`). */
  readonly status: string;
  /** Where the run stands: its status told apart by whether a process drives it now. */
  readonly phase: RunPhase;
  /** The phase in a few words, with the process that drives the run. */
  readonly standing: string;
  /** What moves the run on (`Continue with: maker resume …`); null while it runs, or when done. */
  readonly next: string | null;
  readonly createdAt: string;
  readonly worker: string;
  /** The plans and candidates are simulated (`sim`, `jules-fake`): placeholder work, not real work. */
  readonly simulated: boolean;
  /** What ran on the result, in one sentence (`UNVERIFIED: …`, `Verified: …`). */
  readonly checks: string;
  /** Every check of the result ran in a sandbox and passed. */
  readonly verified: boolean;
  /** The result's checks could not have run yet (it is not composed): neither verified nor not. */
  readonly checksPending: boolean;
  readonly k: number;
  readonly confidence: string;
  readonly hitl: string;
  readonly defaultBranch: string;
  readonly nodes: number;
  readonly leaves: number;
  readonly done: number;
  readonly samples: number;
  readonly flagged: number;
  readonly sessions: number;
  readonly result: {
    readonly rootBranch: string;
    readonly finalCommit: string;
    readonly landed: boolean;
  } | null;
  readonly error: string | null;
  /** Waits on external services under way (an outage, a rate limit), until when. */
  readonly waits: readonly { service: string; reason: string; until: string }[];
}

/** Whether questions can be answered from this view, and what the page says about it. */
export interface Answering {
  readonly ok: boolean;
  readonly note: string;
  /**
   * The process driving the run now (this one, or the live holder of the workspace's lock); null
   * when none does: the run is at rest, or its process died.
   */
  readonly driver: Driver | null;
  /**
   * The command that continues the run once its questions are answered, when no process drives
   * the workspace (an answer here is only saved): `maker resume --dir …`.
   */
  readonly resume?: string | undefined;
}

export interface RunListEntry {
  readonly id: string;
  readonly idea: string;
  readonly status: string;
  readonly phase: RunPhase;
  readonly createdAt: string;
}

export interface RunSnapshot {
  readonly run: ViewRun;
  readonly rootId: string;
  readonly nodes: readonly ViewNode[];
  readonly questions: readonly ViewQuestion[];
  readonly answering: Answering;
  readonly runs: readonly RunListEntry[];
}

export interface NodesDelta {
  readonly nodes: readonly ViewNode[];
  readonly removed: readonly string[];
}

export type RunDelta = Omit<RunSnapshot, 'nodes' | 'rootId'>;

export interface LogEntry {
  readonly seq: number;
  readonly at: string;
  readonly type: string;
  readonly nodeId: string | null;
  readonly text: string;
}

export interface CandidateDetail {
  /** The first sample of its class. */
  readonly slot: number;
  /** Every sample of its class (identical samples share one card); a flagged or unfinished draw alone. */
  readonly slots: readonly number[];
  readonly status: 'started' | 'valid' | 'flagged';
  /** The candidate's class key (normalised content for code; a tree hash in older runs). */
  readonly key: string | null;
  readonly winner: boolean;
  /** Valid draws that agree with this one (itself included). */
  readonly votes: number;
  /** The slots of its class's members, itself included (empty for a draw that did not vote). */
  readonly members: readonly number[];
  readonly flags: readonly { rule: string; message: string }[];
  readonly summary: string | null;
  readonly session: ViewSession | null;
  /** What it proposes, as text: yes/no, a split's subtasks. */
  readonly value: string | null;
  /** Code candidates: the diff of its tree against the node's base, from git. */
  readonly diff: string | null;
}

export interface BallotDetail {
  readonly slot: number;
  readonly status: 'started' | 'valid' | 'flagged';
  /** The judge's pick, as a candidate slot (the first draw of the class it voted for). */
  readonly forSlot: number | null;
  readonly reason: string | null;
  readonly flags: readonly { rule: string; message: string }[];
}

export interface VoteDetail {
  readonly name: string;
  readonly attempt: number;
  readonly outcome: string | null;
  /** Why it ended as it did: votes, ballots, red flags. */
  readonly why: string;
  readonly candidates: readonly CandidateDetail[];
  readonly ballots: readonly BallotDetail[];
  /** What the diffs are against. */
  readonly base: string | null;
}

export interface NodeDetail {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly acceptance: readonly string[];
  /** Its acceptance test (path, command) and whether it was kept, discarded, dropped or contested; null: none voted. */
  readonly acceptanceTest: string | null;
  readonly files: readonly string[];
  readonly clarifications: readonly { question: string; answer: string }[];
  readonly branch: string | null;
  readonly baseCommit: string | null;
  readonly commit: string | null;
  readonly error: string | null;
  readonly votes: readonly VoteDetail[];
}

/** A self-contained report: everything the page shows, with every node's detail. */
export interface ReportData {
  readonly snapshot: RunSnapshot;
  readonly details: Readonly<Record<string, NodeDetail>>;
  readonly log: readonly LogEntry[];
  readonly generatedAt: string;
}

/** What the page is told when it loads: where to get live data, or the report's data. */
export type Boot =
  | { readonly mode: 'live'; readonly token: string; readonly runId: string | null }
  | { readonly mode: 'report'; readonly report: ReportData };
