import type { Question, StateFile } from '../../core/tree/schema.js';
import type { DiffOf } from './diffs.js';
import type { Answering, LogEntry } from './protocol.js';

/** What a view listens to: state changes (of one run, or of any) and new activity-log lines. */
export interface ViewListener {
  changed(runId?: string): void;
  log(runId: string, entry: LogEntry): void;
}

/**
 * Where a view gets a workspace's runs and how it answers their questions. Two kinds: the engine of
 * the process that drives the run (in-process), or the state file and journal another process
 * writes (out-of-process, or a run whose process has died).
 */
export interface ViewSource {
  /** The repository the runs live in (for messages and the journal). */
  readonly dir: string;
  /** Every run as it stands now. */
  state(): Promise<StateFile>;
  /** Starts telling `listener` about changes; the returned function stops it. */
  watch(listener: ViewListener): () => void;
  /** Whether a question of `runId` can be answered from here, and what the page says about it. */
  answering(runId: string): Promise<Answering>;
  /**
   * Records an answer through the same path as `maker answer` (same validation, same state write).
   * Throws a `UsageError` for an answer that fits no option, a `workspace-locked` error when another
   * live process owns the run. `note` tells the person what happens next.
   */
  answer(
    runId: string,
    questionId: string,
    answer: string,
  ): Promise<{ question: Question; note: string }>;
  /** Diffs between commits or trees, for code candidates; absent where there is no repository. */
  readonly diff?: DiffOf | undefined;
  /** Releases what the source holds (timers, watchers). */
  close(): Promise<void>;
}
