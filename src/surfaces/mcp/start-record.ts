import { existsSync } from 'node:fs';
import { mkdir, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { StartIntent } from '../../core/tree/schema.js';
import type { RunEngine } from '../../app/run-engine.js';
import { workspaceKey, type WorkspaceKey } from '../../app/workspace-hold.js';
import { STATE_FILE_NAME } from '../../core/workspace-files.js';
import { dropIntent, recordIntent } from '../../app/start/start-intent.js';

/**
 * `maker_start`'s first write, before any side effect (see `core/tree/intent.ts`): takes the
 * workspace's lock (held already when the server has the repository open; else kept in `locks`
 * for the workspace the start opens) and records the start in the state file (through the open
 * engine, so that its next save keeps it). Returns what undoes it when the set-up fails: a start
 * that made nothing (`nothingMade`) is forgotten and the folder left as it was; the lock taken
 * here is released unless a workspace holds it now.
 */
export async function recordStart(
  dir: string,
  intent: StartIntent,
  server: {
    opened: () => Promise<{ engine: RunEngine } | undefined> | undefined;
    locks: Map<string, WorkspaceKey>;
    secrets: readonly string[];
  },
): Promise<(nothingMade: boolean) => Promise<void>> {
  const open = await server.opened();
  let lock: WorkspaceKey | undefined;
  let madeStateFile = false;
  if (open !== undefined) {
    (await open.engine.state()).starting = intent;
    await open.engine.persist();
  } else {
    await mkdir(dir, { recursive: true });
    const taken = workspaceKey(dir, 'mcp');
    await taken.acquire();
    lock = taken;
    server.locks.set(dir, taken);
    madeStateFile = !existsSync(join(dir, STATE_FILE_NAME));
    await recordIntent(dir, intent, server.secrets).catch(async (error: unknown) => {
      server.locks.delete(dir);
      await taken.release();
      throw error;
    });
  }
  return async (nothingMade) => {
    const now = await server.opened();
    if (nothingMade && now !== undefined) {
      const state = await now.engine.state();
      if (state.starting?.id === intent.id) state.starting = undefined;
      await now.engine.persist();
    } else if (nothingMade) await dropIntent(dir, intent.id, madeStateFile);
    if (now !== undefined || lock === undefined) return;
    server.locks.delete(dir);
    await lock.release();
    if (nothingMade && intent.creates.directory) await rmdir(dir).catch(() => undefined);
  };
}
