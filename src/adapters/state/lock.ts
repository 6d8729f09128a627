import { rmSync } from 'node:fs';
import { open, readFile, rm } from 'node:fs/promises';
import { MakerError } from '../../core/errors.js';

/**
 * A single-writer lock next to the state file: the file holds the owner's pid. A lock whose owner
 * is gone is taken over; a live owner's is refused with an error that names it.
 */
export class WorkspaceLock {
  readonly path: string;
  #held = false;

  constructor(path: string) {
    this.path = path;
  }

  async acquire(): Promise<void> {
    if (this.#held) return;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const handle = await open(this.path, 'wx');
        await handle.writeFile(`${process.pid}\n`);
        await handle.close();
        this.#held = true;
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const owner = Number((await readFile(this.path, 'utf8').catch(() => '')).trim());
        if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
          throw new MakerError(
            'workspace-locked',
            `Another maker process (pid ${owner}) is working on this workspace (${this.path}). Use that one, or stop it first.`,
          );
        }
        await rm(this.path, { force: true }); // stale: its owner is gone
      }
    }
    throw new MakerError('workspace-locked', `Could not take the workspace lock ${this.path}.`);
  }

  /** Acquires the lock for the rest of this process: it is removed when the process exits. */
  async holdUntilExit(): Promise<void> {
    await this.acquire();
    process.once('exit', () => {
      if (this.#held) rmSync(this.path, { force: true });
    });
  }

  async release(): Promise<void> {
    if (!this.#held) return;
    this.#held = false;
    await rm(this.path, { force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
