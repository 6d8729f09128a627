import { appendFile, open, readFile } from 'node:fs/promises';
import { makeRedactor, type Redactor } from '../../core/errors.js';
import { journalRecords } from '../../core/journal-lines.js';

/**
 * An append-only JSONL event journal. Each record is one line, written with a single append (so a
 * crash can cut off at most the last line, which `read` then skips). Every line passes through
 * the redactor before it reaches the disk.
 */
export class Journal {
  readonly path: string;
  readonly #redact: Redactor;
  #tail: Promise<void> = Promise.resolve();
  #appended = false;

  constructor(path: string, secrets: readonly string[] = []) {
    this.path = path;
    this.#redact = makeRedactor(secrets);
  }

  /**
   * Appends one record; appends are serialised in call order. The first append of a process starts
   * on a fresh line if a crash left the last line torn, so the torn line never swallows a record.
   */
  append(record: Readonly<Record<string, unknown>>): Promise<void> {
    const line = `${this.#redact(JSON.stringify(record))}\n`;
    const first = !this.#appended;
    this.#appended = true;
    const next = this.#tail.then(async () =>
      appendFile(this.path, first && (await endsTorn(this.path)) ? `\n${line}` : line, 'utf8'),
    );
    this.#tail = next.catch(() => undefined);
    return next;
  }

  /** Every complete record, oldest first; a torn or foreign last line is skipped. */
  async read(): Promise<Record<string, unknown>[]> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    return journalRecords(text);
  }
}

/** Whether a file exists and its last byte is not a newline (a crash cut its last line). */
async function endsTorn(path: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, 'r');
    const { size } = await handle.stat();
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } catch {
    return false;
  } finally {
    await handle?.close();
  }
}
