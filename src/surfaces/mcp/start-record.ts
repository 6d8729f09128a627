import { existsSync } from 'node:fs';
import { mkdir, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { StartIntent } from '../../core/tree/schema.js';
import type { RunEngine } from '../../app/run-engine.js';
import type { StartSteps } from '../../app/start-run.js';
import type { ResumeSteps } from '../../app/resume-run.js';
import type { RemotePlan } from '../../app/start/remotes.js';
import type { Settings } from '../../app/settings.js';
import type { Lease, Workspaces } from './workspaces.js';
import { workspaceKey, type WorkspaceKey } from '../../app/workspace-hold.js';
import { STATE_FILE_NAME } from '../../core/workspace-files.js';
import { dropIntent, recordIntent } from '../../app/start/start-intent.js';

/**
 * `maker_start`'s first write, before any side effect (see `core/tree/intent.ts`): takes the
 * workspace's lock (held already when the server has the repository open; else kept in `locks`
 * for the workspace the start opens) and records the start in the state file (through the open
 * engine, so that its next save keeps it). Returns what undoes it when the set-up fails: a start
 * that made nothing (`nothingMade`) is forgotten and the folder left as it was; the lock taken
 * here is released unless a workspace holds it now. Finishing an interrupted start records it again.
 */
export async function recordStart(
  dir: string,
  intent: StartIntent,
  server: {
    opened: () => Promise<{ engine: RunEngine } | undefined> | undefined;
    locks: Map<string, WorkspaceKey>;
    secrets: readonly string[];
    /** Finishing a start a kill interrupted: its record stays whatever fails (it may have made things). */
    resuming?: boolean;
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
  return async (madeNothing) => {
    const nothingMade = madeNothing && server.resuming !== true;
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

/**
 * `maker_start`'s steps of the shared start (and of `maker_resume` finishing one): the lock taken
 * and the intent recorded ({@link recordStart}), the workspace leased once it is set up (the run's
 * GitHub token kept for it), and the set-up's own handle on the repository closed.
 */
export function startSteps(
  dir: string,
  remote: RemotePlan,
  workspaces: Workspaces,
  settings: Pick<Settings, 'secrets'>,
  resuming = false,
): StartSteps<Lease> {
  return {
    record: (recorded) =>
      recordStart(dir, recorded, {
        opened: () => workspaces.opened(dir)?.catch(() => undefined),
        locks: workspaces.startLocks,
        secrets: settings.secrets,
        resuming,
      }),
    remote: () => Promise.resolve(remote),
    hold: async () => {
      if (remote.token !== undefined) workspaces.tokens.set(dir, remote.token);
      const lease = await workspaces.lease(dir, true);
      workspaces.startLocks.delete(dir);
      return lease;
    },
    // The set-up's own handle on the repository: its long-lived git processes end here.
    engine: async (made, lease) => (await made.workspace.close(), lease.workspace.engine),
    failed: (_made, lease) => lease.release(),
  };
}

/**
 * `maker_resume`'s steps of the shared resume (`resumeRun`): its questions wait for `maker_answer`
 * (nobody answers at this server's terminal); its workspace leased for writing (the lock taken
 * there, or refused naming its holder), the run's GitHub token kept for it once it is held.
 */
export function resumeSteps(dir: string, workspaces: Workspaces): ResumeSteps<Lease> {
  return {
    config: (run) => ({ ...run.config, hitl: 'wait' }),
    hold: async (token) => {
      const lease = await workspaces.lease(dir);
      if (token !== undefined) workspaces.tokens.set(dir, token);
      return lease;
    },
    engine: (lease) => Promise.resolve({ engine: lease.workspace.engine }),
    release: (lease) => lease.release(),
  };
}
