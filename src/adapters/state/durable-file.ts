import { copyFile, link, open, rename, rm, type FileHandle } from 'node:fs/promises';
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
      else await writePieces(handle, content);
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

/**
 * Writes the pieces in order through one buffer of `size` bytes, filled and written again and
 * again: the file's bytes never exist at once, neither as a string nor as buffers (a large state
 * written in 1 MB strings left a buffer of each for the garbage collector, 30 MB at 10,000
 * leaves). A piece larger than the buffer is written on its own.
 */
async function writePieces(handle: FileHandle, pieces: readonly string[], size = 1 << 20) {
  const buffer = Buffer.allocUnsafe(size);
  let used = 0;
  const flush = async () => {
    let at = 0;
    while (at < used) at += (await handle.write(buffer, at, used - at)).bytesWritten;
    used = 0;
  };
  for (const piece of pieces) {
    // At most 3 bytes a UTF-16 unit in UTF-8: a piece that may not fit goes through its own write.
    if (piece.length * 3 > size - used) {
      if (used > 0) await flush();
      if (piece.length * 3 > size) {
        await handle.writeFile(piece, 'utf8');
        continue;
      }
    }
    used += buffer.write(piece, used, 'utf8');
  }
  if (used > 0) await flush();
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
