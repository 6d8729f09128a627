import type { NodeContext } from './planner.js';
import type { FileEdit } from './workspace.js';

/** A minimal subtask handed to a worker: the node, and the commit its change must apply to. */
export interface WorkerTask {
  readonly context: NodeContext;
  readonly baseCommit: string;
  /** The node's branch (Jules starts sessions on it). */
  readonly branch: string;
  /** Set for a merge conflict: the paths to reconcile and both sides' contents. */
  readonly integration?: {
    readonly conflicts: readonly string[];
    readonly ours: readonly FileEdit[];
    readonly theirs: readonly FileEdit[];
  };
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
    }
  | { readonly ok: false; readonly reason: string; readonly externalId?: string };

/** Write-ahead for paid external work (a Jules session): record its id the moment it exists; find it again after a crash. */
export interface WorkerHooks {
  /** The external id an earlier, interrupted attempt at this slot recorded. */
  readonly externalId?: string;
  /** Records an external id in the state file before the work is awaited. */
  readonly recordExternalId?: (id: string) => Promise<void>;
  /**
   * Asks the person a clarify question on the worker's behalf (a coding agent that stopped to ask);
   * resolves with their answer. May reject when the run defers questions: the work is then resumed later.
   */
  readonly ask?: (question: string) => Promise<string>;
}

/**
 * Produces candidate changes for minimal subtasks. `slot` numbers the candidates of one vote; a
 * worker whose answers depend only on (task, slot) makes resumed runs reproduce uninterrupted ones.
 * A worker failure is a red-flagged candidate, not an error.
 */
export interface Worker {
  readonly id: string;
  run(
    task: WorkerTask,
    slot: number,
    signal?: AbortSignal,
    hooks?: WorkerHooks,
  ): Promise<WorkerOutput>;
}
