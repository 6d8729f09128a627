import type { Sampling } from '../core/sampling.js';
import type { NodeContext } from './planner.js';
import type { WaitReporter } from './waits.js';
import type { FileEdit } from './workspace.js';

/** A minimal subtask handed to a worker: the node, and the commit its change must apply to. */
export interface WorkerTask {
  readonly context: NodeContext;
  readonly baseCommit: string;
  /** The node's branch (Jules starts sessions on it). */
  readonly branch: string;
  /**
   * The commands a candidate must pass, run by MAKER in a sandbox on the candidate's tree (absent:
   * the subtask's own check). An integration's are the checks below the merge.
   */
  readonly checks?: readonly string[];
  /**
   * Set for a merge conflict: the paths to reconcile, their contents at the merge base and on both
   * sides, and what each side is called (its conflict markers carry that name) and set out to do.
   */
  readonly integration?: {
    readonly conflicts: readonly string[];
    /** The common ancestor's contents (empty when it is not known). */
    readonly base?: readonly FileEdit[];
    readonly ours: readonly FileEdit[];
    readonly theirs: readonly FileEdit[];
    readonly sides?: { readonly ours: IntegrationSide; readonly theirs: IntegrationSide };
  };
  /** How a model-backed worker samples (the run's per-model table); others ignore it. */
  readonly sampling?: Sampling | undefined;
}

/** One side of a conflicting merge: its name in conflict markers, and what its work set out to do. */
export interface IntegrationSide {
  readonly label: string;
  /** The subtasks merged on this side, each as a line: title, then what it must achieve. */
  readonly intent: readonly string[];
}

/** One candidate: a patch against `baseCommit`, or whole-file edits, or why there is none. */
export type WorkerOutput =
  | {
      readonly ok: true;
      readonly patch?: string;
      readonly edits?: readonly FileEdit[];
      readonly summary?: string;
      readonly finishReason?: 'stop' | 'length' | 'safety' | 'other';
      /** External id (a Jules session) for resume and traceability. */
      readonly externalId?: string;
      readonly tokens?: number;
      /** Requests the worker sent to a language model for this candidate (an LLM worker: one). */
      readonly modelCalls?: number;
    }
  | {
      readonly ok: false;
      readonly reason: string;
      /**
       * A failure with a rule of its own in the red-flag registry (a session that stopped
       * answering); any other is `worker-failed`.
       */
      readonly rule?: 'session-stuck';
      readonly externalId?: string;
      /** Tokens the failed attempt still cost (a model answer that could not be used). */
      readonly tokens?: number;
      readonly modelCalls?: number;
      /** The worker cannot do the task without writing these paths, outside its list: plan it again. */
      readonly needsFiles?: readonly string[];
    };

/** A choice a worker asks a person to make on its behalf (a coding agent's plan to approve or veto). */
export interface WorkerChoice {
  /** Stable within the slot (or within the run, with `scope: 'run'`), so a resumed slot finds its answer. */
  readonly id: string;
  readonly scope?: 'slot' | 'run';
  readonly kind: 'select' | 'veto';
  readonly prompt: string;
  readonly detail?: string;
  readonly options: readonly { readonly id: string; readonly label: string }[];
  /** The option taken when questions are answered automatically. */
  readonly auto: string;
}

/** A budget of paid external sessions: at most `limit` started in any `windowMs`. */
export interface SessionBudget {
  readonly limit: number;
  readonly windowMs: number;
}

/** A reservation: granted, or refused with the count in the window and when the next one frees up. */
export type Reservation =
  { readonly ok: true } | { readonly ok: false; readonly used: number; readonly nextAt: Date };

/** Write-ahead for paid external work (a Jules session): record its id the moment it exists; find it again after a crash. */
export interface WorkerHooks {
  /** The external id an earlier, interrupted attempt at this slot recorded. */
  readonly externalId?: string;
  /**
   * The slot was started by an earlier process that may have died between creating external work
   * and recording its id: look for it before creating anything.
   */
  readonly resumed?: boolean;
  /** Records an external id in the state file before the work is awaited. */
  readonly recordExternalId?: (id: string) => Promise<void>;
  /**
   * Records other paid work this slot turned out to have bought (a create whose reply was lost,
   * carried out after another took its place): counted in the state, never used as the candidate.
   */
  readonly recordExtraId?: (id: string) => Promise<void>;
  /**
   * Asks the person a clarify question on the worker's behalf (a coding agent that stopped to ask);
   * resolves with their answer. May reject when the run defers questions: the work is then resumed later.
   */
  readonly ask?: (question: string) => Promise<string>;
  /** Asks the person to choose; resolves with the option id. May reject as `ask` does. */
  readonly choose?: (choice: WorkerChoice) => Promise<string>;
  /**
   * Counts one paid session against `budget` in the workspace's persisted ledger, before it is
   * created; refused (and nothing counted) when the window is full.
   */
  readonly reserveSession?: (budget: SessionBudget) => Promise<Reservation>;
  /** Reports a wait on the worker's service (an outage, a rate limit, a quota), for people to see. */
  readonly wait?: WaitReporter;
}

/**
 * Produces candidate changes for minimal subtasks. `slot` numbers the candidates of one vote; a
 * worker whose answers depend only on (task, slot) makes resumed runs reproduce uninterrupted ones.
 * A worker failure that says something about the candidate is a red-flagged candidate; a failure of
 * the service itself (an outage, a spent quota, a refused key) is an error that stops the run, and
 * never a red flag.
 */
export interface Worker {
  readonly id: string;
  /**
   * The worker bounds its own concurrent runs (a service's session cap, as Jules' plan does): the
   * engine then runs it outside its paid-call slots, which bound model calls only, so a session
   * never holds a slot the planner or a review needs, and a finished session's review never keeps
   * the next session from starting.
   */
  readonly limitsItself?: boolean;
  /** With {@link limitsItself}: how many runs it takes at once (the engine keeps that many nodes working). */
  readonly capacity?: number;
  /**
   * Called when a node starts, before anyone knows whether it is a leaf: the worker may get ready
   * in the background (Jules: publish the branch its sessions would start from, overlapping the
   * push with the "is this minimal?" vote). Failures are ignored; `run` must not depend on it.
   * `signal` is the run's: its requests and waits end with it.
   */
  prepare?(task: Pick<WorkerTask, 'branch' | 'baseCommit'>, signal?: AbortSignal): Promise<void>;
  /** Where a person follows one of its sessions (a service's page); absent when they have none. */
  sessionUrl?(id: string): string | undefined;
  run(
    task: WorkerTask,
    slot: number,
    signal?: AbortSignal,
    hooks?: WorkerHooks,
  ): Promise<WorkerOutput>;
}
