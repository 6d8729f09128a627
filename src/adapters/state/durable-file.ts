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

  write(content: string): Promise<void> {
    const next = this.#tail.then(() => this.#write(content));
    this.#tail = next.catch(() => undefined);
    return next;
  }

  async #write(content: string): Promise<void> {
    const handle = await open(this.#temp, 'w');
    try {
      await handle.writeFile(content, 'utf8');
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
