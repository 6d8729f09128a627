import type { Question, RunStatus } from './tree/schema.js';
import type { RedFlag } from './voting/types.js';

/** Everything a run reports, noun-then-action. `seq` orders a run's events; it survives resumes. */
export type EngineEvent = { readonly seq: number; readonly runId: string; readonly at: string } & (
  | { readonly type: 'run-start'; readonly idea: string; readonly resumed: boolean }
  | { readonly type: 'node-start'; readonly nodeId: string; readonly title: string }
  | { readonly type: 'node-minimal'; readonly nodeId: string; readonly minimal: boolean }
  | { readonly type: 'node-split'; readonly nodeId: string; readonly children: readonly string[] }
  | { readonly type: 'vote-start'; readonly nodeId: string; readonly vote: string }
  | {
      readonly type: 'sample-drawn';
      readonly nodeId: string;
      readonly vote: string;
      readonly slot: number;
      readonly key: string;
    }
  | {
      readonly type: 'sample-flagged';
      readonly nodeId: string;
      readonly vote: string;
      readonly slot: number;
      readonly flags: readonly RedFlag[];
    }
  | {
      readonly type: 'vote-end';
      readonly nodeId: string;
      readonly vote: string;
      readonly status: string;
      readonly key?: string | undefined;
      /** Valid samples in the leading and the second class. */
      readonly votes: number;
      readonly runnerUpVotes: number;
      /** Judge ballots for the leading and the second class (`5:5`), when judges were asked. */
      readonly ballots?: string;
      /** The margin it was counted with, when a narrow win raised it above the run's k. */
      readonly k?: number;
    }
  | {
      /** A narrow win did not decide: the vote goes on at margin `to` (`core/voting/adaptive-k.ts`). */
      readonly type: 'vote-k-raised';
      readonly nodeId: string;
      readonly vote: string;
      readonly from: number;
      readonly to: number;
      readonly reason: string;
    }
  | {
      /**
       * The vote raised to margin `k` did not settle within the cap: the decision at margin
       * `stoodAt` (before the raise) stands.
       */
      readonly type: 'vote-k-stood';
      readonly nodeId: string;
      readonly vote: string;
      readonly k: number;
      readonly stoodAt: number;
    }
  | {
      /**
       * The winning class held `texts` different texts (candidates pooled by behaviour): the one
       * in `slot` lands, chosen by `by` (`engine/text-vote.ts` landedMember).
       */
      readonly type: 'vote-text-chosen';
      readonly nodeId: string;
      readonly vote: string;
      readonly texts: number;
      readonly slot: number;
      readonly by: 'agreement' | 'ballots' | 'favourite';
    }
  | {
      /**
       * A failure at `nodeId` was not traced: every finished subtask it builds on was reopened as
       * often as the bounds allow (`reason` says which); what happens next is a person's to decide.
       */
      readonly type: 'not-reopened';
      readonly nodeId: string;
      readonly reason: string;
    }
  | {
      readonly type: 'commit-end';
      readonly nodeId: string;
      readonly branch: string;
      readonly commit: string;
    }
  | {
      readonly type: 'merge-end';
      readonly nodeId: string;
      readonly child: string;
      readonly commit: string;
    }
  | {
      readonly type: 'merge-conflict';
      readonly nodeId: string;
      readonly child: string;
      readonly conflicts: readonly string[];
    }
  | {
      /** A node's repository view was built for a prompt: its size in characters, and how much was left out. */
      readonly type: 'context-built';
      readonly nodeId: string;
      readonly chars: number;
      readonly budget: number;
      /** Paths left out for the budget (named in the prompt). */
      readonly omitted: number;
    }
  | {
      /** Checks ran on a node's latest result (after a merge, before the veto): how many, how many failed. */
      readonly type: 'checks-end';
      readonly nodeId: string;
      readonly ran: number;
      readonly failed: number;
    }
  | {
      /**
       * A leaf's acceptance test was settled: kept (it fails without the code), discarded (it
       * passes without it), none (no test voted), or dropped (every candidate failed it).
       */
      readonly type: 'acceptance-test';
      readonly nodeId: string;
      readonly status: 'kept' | 'discarded' | 'none' | 'dropped' | 'contested';
      readonly reason: string;
    }
  | {
      /** A leaf's probe was settled: kept (candidates are keyed by what it prints), or none. */
      readonly type: 'probe';
      readonly nodeId: string;
      readonly status: 'kept' | 'none';
      readonly reason: string;
    }
  | {
      /**
       * How a leaf's probe keyed its code vote: `texts` distinct texts among the candidates keyed
       * by behaviour, `behaviours` distinct behaviours among them, `byText` candidates whose probe
       * run keyed nothing.
       */
      readonly type: 'behaviour-pooled';
      readonly nodeId: string;
      readonly texts: number;
      readonly behaviours: number;
      readonly byText: number;
    }
  | {
      /** A merge broke checks that passed below it: the merge is repaired by a voted integration. */
      readonly type: 'merge-checks-failed';
      readonly nodeId: string;
      readonly child: string;
      readonly commands: readonly string[];
    }
  | {
      /**
       * A finished node was reopened: a failure found later (`trigger`: where it showed) was traced
       * to its result, which is set aside; it is voted again, and what builds on it is brought over.
       */
      readonly type: 'node-reopened';
      readonly nodeId: string;
      readonly trigger: string;
      /** For people: `reopened 0 (Set up the package) because …`. */
      readonly reason: string;
    }
  | {
      /** Checks cannot run (no sandbox works here): said once per start; the result is unverified. */
      readonly type: 'checks-unavailable';
      readonly reason: string;
    }
  | { readonly type: 'question-asked'; readonly question: Question }
  | { readonly type: 'question-answered'; readonly questionId: string; readonly answer: string }
  | {
      readonly type: 'wait-start';
      readonly waitId: string;
      readonly service: string;
      readonly reason: string;
      /** ISO time. */
      readonly until: string;
      /** ISO time it began (absent in journals written before it was recorded). */
      readonly since?: string;
    }
  | { readonly type: 'wait-end'; readonly waitId: string; readonly service: string }
  /** The run's pull request was opened, merged, closed or reopened (`note` says why, when it is news). */
  | {
      readonly type: 'pull-request';
      readonly number: number;
      readonly url: string;
      readonly state: 'open' | 'closed' | 'merged';
      readonly note?: string;
    }
  | { readonly type: 'run-end'; readonly status: RunStatus; readonly error?: string | undefined }
);

type Distribute<T> = T extends unknown ? Omit<T, 'seq' | 'runId' | 'at'> : never;
/** An event before the engine stamps it. */
export type EngineEventInput = Distribute<EngineEvent>;
