import type { HeldSlot } from '../../core/semaphore.js';
import type { Run, TreeNode } from '../../core/tree/schema.js';
import type { CheckEnvironment } from '../../core/checks.js';
import type { Planner } from '../../ports/planner.js';
import type { RunRemote } from '../../ports/remote.js';
import type { WaitReporter } from '../../ports/waits.js';
import type { Reservation, SessionBudget, Worker } from '../../ports/worker.js';
import type { CheckRunner, Landing, Repository } from '../../ports/workspace.js';
import type { EngineEventInput } from '../events.js';
import type { Asked } from '../hitl/hitl.js';
import type { Answer } from '../hitl/questions.js';

/**
 * What the step modules need from the engine for one run: the run (not the rest of the state
 * file), its ports, and its services.
 */
export interface RunContext {
  readonly run: Run;
  /** The run's repository: objects, trees, commits and refs (in its scratch store, when it has one). */
  readonly workspace: Repository;
  /** Commands run on trees in the sandbox: the checks' role (`checks/`: `runCheck`), no other step's. */
  readonly checks: CheckRunner;
  /** The default branch moved to the result: the landing's role (`land/`), no other step's. */
  readonly landing: Landing;
  /** Where checks run, when they run (the planner is told); absent when none can run. */
  readonly checkEnvironment?: CheckEnvironment;
  readonly planner: Planner;
  readonly worker: Worker;
  readonly signal: AbortSignal;
  /**
   * Aborted when the run is cancelled or another subtree failed: no new draw starts (paid work
   * under way holds `signal`, and finishes).
   */
  readonly halt?: AbortSignal;
  readonly now: () => Date;
  /** The run's repository on GitHub, when it has one. */
  readonly remote?: RunRemote | undefined;
  /**
   * Publishes a node branch at `sha` to the run's remote (nothing without one), in the background:
   * branches moved at one moment go out in one push. Failures show when the run publishes every
   * branch before its pull request ({@link publishAll}).
   */
  publish?(branch: string, sha: string): void;
  /** A named point between the steps of a multi-step operation (crash tests kill the process there). */
  checkpoint?(step: string): Promise<void>;
  /** The configured keys and tokens: a candidate that writes one is red-flagged. Never saved. */
  readonly secrets: readonly string[];
  /**
   * Redacts what a check or an install printed (`OutputRedactor`: the configured keys, the
   * person's secrets from the environment, credential formats) before any of it is kept.
   * Absent: credential formats only.
   */
  readonly redactOutput?: (text: string) => Promise<string>;
  /**
   * Persists the state; resolves once what was mutated before the call is on disk. Name the nodes
   * changed since their last save (`ctx.save(n)`): a save then looks only at them, the run's own
   * fields and new nodes. No argument: anything may have changed.
   */
  save(...nodes: TreeNode[]): Promise<void>;
  /** Marks nodes changed for the next save, which it does not start at once (see {@link saveSoon}). */
  saveSoon?(...nodes: TreeNode[]): void;
  emit(event: EngineEventInput): void;
  /**
   * Runs paid work (a model call, a worker run, a check) in one of the run's `concurrency` slots.
   * `ahead`: served before work that has not started yet (it finishes a candidate already paid for).
   */
  paid<T>(work: () => Promise<T>, options?: { readonly ahead?: boolean }): Promise<T>;
  /**
   * Waits in line for a paid slot as {@link paid} does, and returns it: the caller builds its work
   * only once it can run. Absent: callers use {@link paid}.
   */
  claim?(options?: { readonly ahead?: boolean }): Promise<HeldSlot>;
  /**
   * Takes the node a place among the nodes that work at once (`NodeWindow`); resolves with
   * the function that gives it up. Absent: every node works at once.
   */
  enter?(n: TreeNode): Promise<() => void>;
  /** What a worker's run reaches beyond its node (`workerHooks`). */
  readonly services: RunServices;
  /**
   * Asks a question once (by id) and resolves with its answer, as the run's HITL policy says
   * (`HitlDesk.ask` in hitl.ts).
   */
  ask(question: Asked, auto: Answer | undefined): Promise<Answer>;
}

/** The run's services to a worker: the workspace's session ledger, and the run's waits. */
export interface RunServices {
  /**
   * Counts one session of `workerId` in the workspace's ledger (shared by every run in the state
   * file), unless `budget` is spent (`reserveSession` in session-ledger.ts).
   */
  reserveSession(workerId: string, budget: SessionBudget): Promise<Reservation>;
  /**
   * Shows a wait on an external service: one long enough to notice (`VISIBLE_WAIT_MS`) is
   * recorded on the run in the state file and announced (`wait-start`), until the returned
   * function ends it (`wait-end`).
   */
  readonly wait: WaitReporter;
}
