import { existsSync } from 'node:fs';
import { mkdir, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { StartIntent } from '../../core/tree/schema.js';
import { STATE_FILE_NAME } from '../../core/workspace-files.js';
import type { UndoStart } from '../start-run.js';
import type { Settings } from '../settings.js';
import { dropIntent, recordIntent } from './start-intent.js';

/** A workspace's lock, as a surface takes it: for its process's life, or until let go of. */
export interface StartLock {
  release(): Promise<void>;
}

/**
 * A start's first write, for every surface, before any side effect (see `core/tree/intent.ts`):
 * `dir` made, its workspace lock taken (`take`: refused while a live process holds it), and the
 * intent saved in its state file (secrets redacted). Returns the start's undo: a start that made
 * nothing (`nothingMade`, unless `resuming` one a kill interrupted, which may have made things) is
 * forgotten (the state file goes too when this start made it, and the folder when the start
 * created it), and the lock is let go of, unless something of this process holds the workspace
 * open now (`holder`): the intent is then forgotten through it, and the lock is its own.
 */
export async function recordStart<Lock extends StartLock>(
  dir: string,
  intent: StartIntent,
  how: {
    readonly take: () => Promise<Lock>;
    readonly settings: Pick<Settings, 'secrets' | 'seam'>;
    readonly resuming: boolean;
    /** Called with the lock once it is taken (a surface's note of a stale lock taken over). */
    readonly locked?: (lock: Lock) => void;
    /** The workspace's holder in this process now, if any (its next save would keep the intent). */
    readonly holder?: () => Promise<{ forget(id: string): Promise<void> } | undefined>;
    /** The lock is let go of (the surface forgets it, before it is released). */
    readonly released?: () => void;
  },
): Promise<UndoStart> {
  await mkdir(dir, { recursive: true });
  const lock = await how.take();
  how.locked?.(lock);
  how.settings.seam?.('start:locked');
  const release = async () => (how.released?.(), await lock.release());
  const madeStateFile = !existsSync(join(dir, STATE_FILE_NAME));
  await recordIntent(dir, intent, how.settings.secrets).catch(async (error: unknown) => {
    await release();
    throw error;
  });
  return async (madeNothing) => {
    const nothingMade = madeNothing && !how.resuming;
    const holder = await how.holder?.();
    if (nothingMade) await (holder?.forget(intent.id) ?? dropIntent(dir, intent.id, madeStateFile));
    if (holder !== undefined) return;
    await release();
    if (nothingMade && intent.creates.directory) await rmdir(dir).catch(() => undefined);
  };
}
