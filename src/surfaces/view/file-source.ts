import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { StateFile } from '../../core/tree/schema.js';
import { JOURNAL_FILE_NAME, STATE_FILE_NAME } from '../../core/workspace-files.js';
import { answerQuestion } from '../../app/answer-question.js';
import { lockDriver, workspaceLockHolder } from '../../app/run-status.js';
import { readState } from '../../app/read-runs.js';
import { readAppended } from './journal-tail.js';
import type { DiffOf } from './diffs.js';
import { logEntry } from './model.js';
import type { Answering } from './protocol.js';
import type { ViewListener, ViewSource } from './source.js';

/**
 * A view of runs another process drives (or drove): it follows `maker-state.json` with its log
 * (read as a load does: snapshot plus log) and `maker-journal.jsonl` (appended), by
 * polling both every `pollMs`. Questions are answered as `maker answer` does, under the workspace
 * lock: only while no live process holds it.
 */
export class FileSource implements ViewSource {
  readonly dir: string;
  readonly diff: DiffOf | undefined;
  readonly #secrets: readonly string[];
  readonly #pollMs: number;
  readonly #listeners = new Set<ViewListener>();
  readonly #statePath: string;
  readonly #journalPath: string;
  #state: StateFile;
  #stamp: string;
  #journalOffset: number;
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  /** Who drove the workspace at the last look (`maker run, pid 4242`), and when that look was. */
  #driver: string | undefined;
  #lookedAt = 0;

  private constructor(
    options: { dir: string; secrets: readonly string[]; pollMs: number; diff?: DiffOf | undefined },
    state: StateFile,
    stamp: string,
    journalOffset: number,
  ) {
    this.dir = options.dir;
    this.diff = options.diff;
    this.#secrets = options.secrets;
    this.#pollMs = options.pollMs;
    this.#statePath = join(options.dir, STATE_FILE_NAME);
    this.#journalPath = join(options.dir, JOURNAL_FILE_NAME);
    this.#state = state;
    this.#stamp = stamp;
    this.#journalOffset = journalOffset;
  }

  /** Reads the state file once (a file that cannot be read is an error here, never later). */
  static async open(options: {
    dir: string;
    secrets: readonly string[];
    pollMs?: number;
    diff?: DiffOf | undefined;
  }): Promise<FileSource> {
    const statePath = join(options.dir, STATE_FILE_NAME);
    const stamp = await stampOf(statePath);
    const state = await readState(options.dir);
    const journal = await stat(join(options.dir, JOURNAL_FILE_NAME)).catch(() => undefined);
    return new FileSource(
      { ...options, pollMs: options.pollMs ?? 250 },
      state,
      stamp,
      journal?.size ?? 0,
    );
  }

  state(): Promise<StateFile> {
    return Promise.resolve(this.#state);
  }

  watch(listener: ViewListener): () => void {
    this.#listeners.add(listener);
    this.#timer ??= setInterval(() => void this.tick(), this.#pollMs);
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.#stop();
    };
  }

  /** Looks for changes now (also run every `pollMs` while someone watches). */
  tick(): Promise<void> {
    this.#ticking ??= this.#tick().finally(() => (this.#ticking = undefined));
    return this.#ticking;
  }

  async #tick(): Promise<void> {
    const stamp = await stampOf(this.#statePath);
    if (stamp !== this.#stamp) {
      try {
        this.#state = await readState(this.dir);
        this.#stamp = stamp;
        for (const l of this.#listeners) l.changed();
      } catch {
        // Mid-replacement or unreadable for now: keep showing the last good state, try again.
      }
    }
    // A process that dies changes no file: its run is seen interrupted by its lock, looked at
    // about once a second.
    if (Date.now() - this.#lookedAt >= Math.max(this.#pollMs, 1000)) {
      this.#lookedAt = Date.now();
      const driver = lockDriver(await this.#lock())?.who;
      if (driver !== this.#driver) {
        this.#driver = driver;
        for (const l of this.#listeners) l.changed();
      }
    }
    const { records, offset } = await readAppended(this.#journalPath, this.#journalOffset);
    this.#journalOffset = offset;
    for (const record of records) {
      const entry = logEntry(record);
      const runId = record['runId'];
      if (entry === undefined || typeof runId !== 'string') continue;
      for (const l of this.#listeners) l.log(runId, entry);
    }
  }

  #lock() {
    return workspaceLockHolder(this.dir);
  }

  async answering(): Promise<Answering> {
    const lock = await this.#lock();
    const driver = lockDriver(lock);
    if (lock !== undefined && driver !== undefined) {
      const who =
        lock.owner.command === undefined ? 'another maker process' : `maker ${lock.owner.command}`;
      return {
        ok: false,
        driver,
        note: `${who} (pid ${lock.owner.pid}) is driving this workspace: answer its questions there (its terminal, its own view, or Gemini CLI). This page shows the run and follows it live.`,
      };
    }
    return {
      ok: true,
      driver: null,
      note: 'No maker process is driving this workspace: an answer here is saved to the state file, as maker answer does; then continue the run with maker resume.',
      resume: `maker resume --dir ${this.dir}`,
    };
  }

  async answer(runId: string, questionId: string, answer: string) {
    const { question } = await answerQuestion(
      { dir: this.dir, secrets: this.#secrets, command: 'view' },
      { runId, questionId, answer },
    );
    await this.tick();
    return {
      question,
      note: `Recorded. Continue the run with: maker resume --dir ${this.dir}`,
    };
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    this.#stop();
    await this.#ticking;
  }

  #stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/** What changes when the file is replaced or rewritten: inode, size and modification time. */
/** Changes whenever the state does: the snapshot (replaced by renames) or its log (appended). */
async function stampOf(path: string): Promise<string> {
  const stamp = async (file: string) => {
    const s = await stat(file).catch(() => undefined);
    return s === undefined ? 'missing' : `${s.ino}:${s.size}:${s.mtimeMs}`;
  };
  return `${await stamp(path)}/${await stamp(`${path}.log`)}`;
}
