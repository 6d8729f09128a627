import { copyFile, link, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `path` so that a crash or a power loss leaves the old file or the new one, whole: the new
 * content goes to a temp file that is flushed to disk, the current file is kept as `<path>.bak`
 * (a hard link: no bytes copied), the temp file is renamed over `path`, and the directory entry is
 * flushed. Concurrent writes are serialised, and a write that is still queued is superseded by a
 * later one (only the newest content matters).
 */
export class DurableFile {
  readonly path: string;
  readonly backupPath: string;
  readonly #temp: string;
  #tail: Promise<void> = Promise.resolve();

  constructor(path: string) {
    this.path = path;
    this.backupPath = `${path}.bak`;
    this.#temp = join(dirname(path), `.${basename(path)}.tmp`);
  }

  /** `content` as one string, or in pieces written one after another (never joined in memory). */
  write(content: string | readonly string[]): Promise<void> {
    const next = this.#tail.then(() => this.#write(content));
    this.#tail = next.catch(() => undefined);
    return next;
  }

  async #write(content: string | readonly string[]): Promise<void> {
    const handle = await open(this.#temp, 'w');
    try {
      if (typeof content === 'string') await handle.writeFile(content, 'utf8');
      else for (const batch of batches(content)) await handle.writeFile(batch, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await this.#keepBackup();
    await rename(this.#temp, this.path);
    await syncDirectory(dirname(this.path));
  }

  /** The current file becomes the backup, atomically (the backup is never half-written). */
  async #keepBackup(): Promise<void> {
    const staging = `${this.backupPath}.tmp`;
    await rm(staging, { force: true });
    try {
      await link(this.path, staging);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return; // the first save: nothing to keep
      // A file system without hard links: copy instead.
      await copyFile(this.path, staging);
    }
    await rename(staging, this.backupPath);
  }
}

/** The pieces joined into strings of about `size` characters: few writes, no copy of the whole. */
function* batches(pieces: readonly string[], size = 1 << 20): Generator<string> {
  let batch: string[] = [];
  let length = 0;
  for (const piece of pieces) {
    batch.push(piece);
    length += piece.length;
    if (length >= size) {
      yield batch.join('');
      batch = [];
      length = 0;
    }
  }
  if (batch.length > 0) yield batch.join('');
}

/** Flushes a directory entry (a rename) to disk where the platform allows it. */
export async function syncDirectory(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // Some platforms cannot open or flush a directory; the rename is still atomic there.
  } finally {
    await handle?.close();
  }
}
