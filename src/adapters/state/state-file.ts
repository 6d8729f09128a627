import { join } from 'node:path';
import type { Redactor } from '../../core/errors.js';
import { STATE_SCHEMA_VERSION, stateFileSchema, type StateFile } from '../../core/tree/schema.js';
import type { StateStore } from '../../ports/state-store.js';
import { LogFile } from './log-file.js';
import { STATE_MIGRATIONS } from './migrations.js';
import { logHeader, readStateLog, replay, saveText } from './state-log.js';
import { StateText } from './state-text.js';
import { StateFileError, VersionedJsonFile } from './versioned-json-file.js';
import { abortableSleep } from '../../core/sleep.js';
import {
  JOURNAL_FILE_NAME,
  STATE_FILE_NAME,
  STATE_LOG_FILE_NAME,
} from '../../core/workspace-files.js';

/** Reads of a log found ahead of its snapshot before it counts as a restored backup. */
const LOAD_ATTEMPTS = 3;

export { stateSerializer } from './state-text.js';

export { JOURNAL_FILE_NAME, STATE_FILE_NAME, STATE_LOG_FILE_NAME };

/**
 * When the log is folded into a new snapshot: when it has grown past `minLogBytes` and past
 * `snapshotFactor` times what a snapshot would cost now (the last one's length plus what the state
 * grew since, as {@link StateText} counts it). Never by age: a snapshot rewritten on a timer costs
 * its whole size again and again while the run does little, so bytes written per node grew with
 * the run (12× from 50 to 4,096 leaves). Nor against the last snapshot's size: while a run grows,
 * each snapshot was then larger than the log before it by the state's growth, and the last one
 * before a clean stop could cost as much as the stop's own. Bounded this way, each snapshot
 * follows at least `snapshotFactor` times its own length of log, so snapshots add at most
 * 1/`snapshotFactor` to the bytes the log writes, whatever the run's size (and the clean stop's
 * compaction one state's length), and a load replays at most that many states' worth of log.
 */
export interface CompactionPolicy {
  readonly minLogBytes: number;
  readonly snapshotFactor: number;
}

/** Snapshots then write at most half as many bytes as the log, and a load replays at most twice the state. */
const DEFAULT_POLICY: CompactionPolicy = {
  minLogBytes: 4 << 20,
  snapshotFactor: 2,
};

export interface MakerStateFileOptions {
  readonly policy?: CompactionPolicy;
  /** Crash tests only: called between the steps of a save (`state:log-appended`, `state:snapshot-written`). */
  readonly checkpoint?: (step: string) => void;
  /** Tests only: awaited between reading the snapshot and reading its log (a reader's race). */
  readonly betweenReads?: () => Promise<void>;
}

/**
 * The workspace's state: `maker-state.json` (a complete snapshot, schema v3, validated on every
 * load, older versions migrated) plus `maker-state.json.log`, the changes since that snapshot.
 *
 * A save appends a record per changed node, run head or ledger to the log, all on one line, and
 * flushes it to disk (so it costs what changed, and a torn append loses a whole save, never part); the log is folded into a new snapshot, written atomically with its
 * `.bak` kept, when it outgrows the snapshot (see {@link CompactionPolicy}), on the first
 * save after a load, and on {@link compact} (a clean stop), so the snapshot is complete whenever no
 * process is running. A load reads the snapshot and replays the log over it; a torn last line (a
 * crash mid-append, never acknowledged) is ignored. The snapshot carries `$generation` and the log's
 * header the generation it follows: a log older than the snapshot (a crash between writing the
 * snapshot and starting the new log) is ignored, a newer one is refused. Everything written passes
 * `redact`.
 */
export class MakerStateFile implements StateStore<StateFile> {
  readonly #snapshot: VersionedJsonFile<StateFile>;
  readonly #log: LogFile;
  readonly #text: StateText;
  readonly #policy: CompactionPolicy;
  readonly #checkpoint: (step: string) => void;
  #generation = 0;
  /** What a snapshot would cost now, about: the last one's length and what the state grew since. */
  #stateBytes = 0;
  #logBytes = 0;
  /** The next save writes a snapshot (after a load, a failed write, or a removal). */
  #mustCompact = true;
  #tail: Promise<void> = Promise.resolve();
  #written = 0;
  /** Whether the last load found a snapshot (and so looked at the log through it). */
  #snapshotRead = false;
  /** The last read found the log ahead of the snapshot (see {@link load}). */
  #logAhead = false;
  readonly #betweenReads: (() => Promise<void>) | undefined;

  constructor(dir: string, redact: Redactor = (text) => text, options: MakerStateFileOptions = {}) {
    const logPath = join(dir, STATE_LOG_FILE_NAME);
    this.#log = new LogFile(logPath);
    this.#text = new StateText(redact);
    this.#policy = options.policy ?? DEFAULT_POLICY;
    this.#checkpoint = options.checkpoint ?? (() => undefined);
    this.#betweenReads = options.betweenReads;
    this.#snapshot = new VersionedJsonFile<StateFile>({
      path: join(dir, STATE_FILE_NAME),
      schema: stateFileSchema,
      currentVersion: STATE_SCHEMA_VERSION,
      migrations: STATE_MIGRATIONS,
      empty: () => ({ $schemaVersion: STATE_SCHEMA_VERSION, runs: {} }),
      description: 'MAKER state',
      complete: (document) => this.#replayLog(logPath, document),
    });
  }

  get path(): string {
    return this.#snapshot.path;
  }

  get logPath(): string {
    return this.#log.path;
  }

  /** Bytes written to disk by this store's saves so far (log appends and snapshots). */
  get bytesWritten(): number {
    return this.#written;
  }

  /**
   * The state, from the snapshot and its log. A log ahead of the snapshot is read again, twice, a
   * moment apart: another process saving the run (a `maker run` beside `maker status`) may have
   * compacted between the two reads, writing the new snapshot, then the new log. Still ahead, it is
   * a restored backup, refused.
   */
  async load(): Promise<StateFile> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#loadOnce();
      } catch (error) {
        if (!(error instanceof StateFileError) || !this.#logAhead || attempt === LOAD_ATTEMPTS)
          throw error;
        await abortableSleep(25 * attempt);
      }
    }
  }

  async #loadOnce(): Promise<StateFile> {
    this.#generation = 0;
    this.#mustCompact = true;
    this.#snapshotRead = false;
    this.#logAhead = false;
    const state = await this.#snapshot.load();
    if (!this.#snapshotRead) await this.#refuseOrphanLog();
    return state;
  }

  /** No snapshot: a log beside it that is not ours, or holds changes, would be replaced by the first save. */
  async #refuseOrphanLog(): Promise<void> {
    const log = await readStateLog(this.#log.path);
    if (log === undefined || log.records.length === 0) return;
    throw new StateFileError(
      this.#log.path,
      'corrupt',
      `the state log holds changes to a snapshot, but ${this.path} is missing (moved aside?). Put the snapshot back to continue, or move the log aside to start afresh.`,
    );
  }

  async #replayLog(
    logPath: string,
    document: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    this.#snapshotRead = true;
    const generation = document['$generation'];
    delete document['$generation'];
    const snapshotGeneration = typeof generation === 'number' ? generation : 0;
    this.#generation = snapshotGeneration;
    await this.#betweenReads?.();
    const log = await readStateLog(logPath);
    if (log === undefined || log.generation < snapshotGeneration) return document;
    if (log.generation > snapshotGeneration) {
      this.#logAhead = true;
      throw new StateFileError(
        logPath,
        'newer',
        `the state log follows snapshot generation ${log.generation}, but ${this.path} is generation ${snapshotGeneration} (an older snapshot, e.g. a restored backup). Move the log aside to continue from the snapshot alone.`,
      );
    }
    return replay(document, log.records, logPath);
  }

  /**
   * Records what changed in `document` since the previous save (only the nodes in `changed`, when
   * given; see {@link StateStore.save}); resolves once it is on disk. What changed is taken
   * synchronously, at the call.
   */
  save(document: StateFile, changed?: ReadonlySet<object>): Promise<void> {
    const { lines, removed, grew } = this.#text.update(document, changed);
    const bytes = lines.reduce((sum, line) => sum + line.length, 0);
    this.#stateBytes += grew;
    const { minLogBytes, snapshotFactor } = this.#policy;
    const large = this.#logBytes + bytes > Math.max(minLogBytes, snapshotFactor * this.#stateBytes);
    if (this.#mustCompact || removed || large) return this.#compactNow(document);
    if (lines.length === 0) return this.#tail;
    this.#logBytes += bytes;
    return this.#enqueue(async () => {
      const written = await this.#log.append(saveText(lines));
      this.#written += written;
      this.#checkpoint('state:log-appended');
    });
  }

  /**
   * Writes the whole of `document` into `maker-state.json` and starts an empty log (a clean stop);
   * every node not cached as `done` is looked at, whatever earlier saves were told.
   */
  compact(document: StateFile): Promise<void> {
    this.#text.update(document);
    return this.#compactNow(document);
  }

  #compactNow(document: StateFile): Promise<void> {
    const generation = this.#generation + 1;
    // In pieces: a large state's text is never held whole (nor its bytes for the file).
    const pieces = this.#text.documentPieces(document, `"$generation":${generation}`);
    const length = pieces.reduce((sum, piece) => sum + piece.length, 0);
    this.#generation = generation;
    this.#mustCompact = false;
    this.#logBytes = 0;
    this.#stateBytes = length;
    return this.#enqueue(async () => {
      await this.#snapshot.writeText(pieces);
      this.#written += length + 1;
      this.#checkpoint('state:snapshot-written');
      this.#written += await this.#log.replace(logHeader(generation));
    });
  }

  #enqueue(write: () => Promise<void>): Promise<void> {
    const next = this.#tail.then(write).catch((error: unknown) => {
      this.#mustCompact = true; // what the failed write held is only in memory: write it all next
      throw error;
    });
    this.#tail = next.catch(() => undefined);
    return next;
  }
}

/** The workspace's state file (see {@link MakerStateFile}). */
export function makerStateFile(
  dir: string,
  redact: Redactor = (text) => text,
  options: MakerStateFileOptions = {},
): MakerStateFile {
  return new MakerStateFile(dir, redact, options);
}
