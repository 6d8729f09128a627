import { open, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { syncDirectory } from './durable-file.js';

/**
 * An append-only text file flushed to disk on every append. `append` resolves once the text is on
 * disk (a crash may leave a torn last line, never a lost acknowledged one); `replace` swaps in new
 * content atomically (temp file, flush, rename, directory flush). Calls must not overlap: the
 * caller serialises them.
 */
export class LogFile {
  readonly path: string;
  readonly #temp: string;

  constructor(path: string) {
    this.path = path;
    this.#temp = join(dirname(path), `.${basename(path)}.tmp`);
  }

  /** Appends `text`; resolves with the bytes written once they are on disk. */
  async append(text: string): Promise<number> {
    const handle = await open(this.path, 'a');
    try {
      await handle.writeFile(text, 'utf8');
      await handle.datasync();
      return Buffer.byteLength(text);
    } finally {
      await handle.close();
    }
  }

  /** Replaces the whole file with `text`, atomically; resolves with the bytes written. */
  async replace(text: string): Promise<number> {
    const handle = await open(this.#temp, 'w');
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(this.#temp, this.path);
    await syncDirectory(dirname(this.path));
    return Buffer.byteLength(text);
  }
}
