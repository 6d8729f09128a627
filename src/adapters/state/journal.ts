import { appendFile, readFile } from 'node:fs/promises';
import { redactSecrets } from '../../core/errors.js';

/**
 * An append-only JSONL event journal. Each record is one line, written with a single append (so a
 * crash can cut off at most the last line, which `read` then skips). Every line passes through
 * {@link redactSecrets} before it reaches the disk.
 */
export class Journal {
  readonly path: string;
  readonly #secrets: readonly string[];
  #tail: Promise<void> = Promise.resolve();

  constructor(path: string, secrets: readonly string[] = []) {
    this.path = path;
    this.#secrets = secrets;
  }

  /** Appends one record; appends are serialised in call order. */
  append(record: Readonly<Record<string, unknown>>): Promise<void> {
    const line = `${redactSecrets(JSON.stringify(record), this.#secrets)}\n`;
    const next = this.#tail.then(() => appendFile(this.path, line, 'utf8'));
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
    const records: Record<string, unknown>[] = [];
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        const value: unknown = JSON.parse(line);
        if (typeof value === 'object' && value !== null && !Array.isArray(value))
          records.push(value as Record<string, unknown>);
      } catch {
        // A torn line from a crash mid-append: skip it.
      }
    }
    return records;
  }
}
