import type { Question, Run, RunConfig, StateFile } from '../core/tree/schema.js';
import type { Planner } from '../ports/planner.js';
import type { RunRemote } from '../ports/remote.js';
import type { StateStore } from '../ports/state-store.js';
import type { Worker } from '../ports/worker.js';
import type { Workspace } from '../ports/workspace.js';
import type { EngineEvent } from './events.js';
import type { WaitReporter } from '../ports/waits.js';

/** What the engine (`MakerEngine`) is built from. */
export interface MakerEngineDeps {
  readonly workspace: Workspace;
  /**
   * The planner and worker a run uses: fixed, or chosen from the run's configuration when the run
   * starts (built then, which may load their code).
   */
  readonly roles: Roles | ((config: RunConfig, run?: Run) => Roles | Promise<Roles>);
  readonly store: StateStore<StateFile>;
  /** Receives every event (the JSONL journal); failures are ignored. */
  readonly journal?: (event: EngineEvent) => Promise<void> | void;
  readonly now?: () => Date;
  readonly newRunId?: () => string;
  /** The configured keys and tokens (never saved): candidates that write one are red-flagged. */
  readonly secrets?: readonly string[];
  /**
   * Redacts what checks and installs print, before any of it is kept: the surfaces make it
   * (`outputRedactor`) from the configured keys and the person's secrets in the environment.
   * Absent: the configured keys and the credential formats.
   */
  readonly redactOutput?: (text: string) => Promise<string>;
  /** Called before each step of a multi-step operation (landing), by name: the seam crash tests kill through. */
  readonly checkpoint?: (step: string) => void | Promise<void>;
  /**
   * The run's repository on GitHub, for runs that have one (`run.github`): node branches are
   * published through it, and the result lands through its pull request.
   */
  readonly remote?: (run: Run) => RunRemote | undefined;
  /** How long the pull request's body waits for more changes before it is rewritten (default 2 s). */
  readonly pullRequestDebounceMs?: number;
}

export interface Roles {
  readonly planner: Planner;
  readonly worker: Worker;
  /** Releases what the roles hold (a local server); called at the end of a run whose roles the engine made. */
  readonly close?: () => Promise<void>;
  /** Where the roles report waits on their services (a model's rate limits and slow calls). */
  readonly watchWaits?: (report: WaitReporter) => void;
}

export type RunOutcome = Pick<Run, 'id' | 'status' | 'result' | 'error'> & {
  readonly pending: readonly Question[];
};

/** A run that is over: nothing resumes it. */
export function ended(run: Run): boolean {
  return run.status === 'done' || run.status === 'vetoed';
}

/** What `MakerEngine.run` returns: how the run stands, and the questions it waits on. */
export function outcome(run: Run): RunOutcome {
  return {
    id: run.id,
    status: run.status,
    result: run.result,
    error: run.error,
    pending: run.questions.filter((q) => q.answer === undefined),
  };
}
