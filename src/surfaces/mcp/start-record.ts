import type { StartIntent } from '../../core/tree/schema.js';
import type { RunEngine } from '../../app/run-engine.js';
import type { StartSteps, UndoStart } from '../../app/start-run.js';
import type { ResumeSteps } from '../../app/resume-run.js';
import type { RemotePlan } from '../../app/start/remotes.js';
import type { Settings } from '../../app/settings.js';
import type { Lease, Workspaces } from './workspaces.js';
import { workspaceKey, type WorkspaceKey } from '../../app/workspace-hold.js';
import { recordStart } from '../../app/start/record-start.js';
import { dropIntent } from '../../app/start/start-intent.js';

/**
 * `maker_start`'s first write, before any side effect: the shared {@link recordStart} (the lock
 * kept in `locks` for the workspace the start opens), or, when the server has the repository open
 * already (its lock held), the intent recorded through the open engine, so that its next save keeps
 * it. Returns what undoes it when the set-up fails; finishing an interrupted start records it again.
 */
export async function recordMcpStart(
  dir: string,
  intent: StartIntent,
  server: {
    opened: () => Promise<{ engine: RunEngine } | undefined> | undefined;
    locks: Map<string, WorkspaceKey>;
    settings: Pick<Settings, 'secrets' | 'seam'>;
    /** Finishing a start a kill interrupted: its record stays whatever fails (it may have made things). */
    resuming: boolean;
  },
): Promise<UndoStart> {
  /** The engine holding the workspace now, forgetting a start through its own state. */
  const holder = async () => {
    const now = await server.opened();
    return now === undefined
      ? undefined
      : {
          forget: async (id: string) => {
            const state = await now.engine.state();
            if (state.starting?.id === id) state.starting = undefined;
            await now.engine.persist();
          },
        };
  };
  const open = await server.opened();
  if (open !== undefined) {
    (await open.engine.state()).starting = intent;
    await open.engine.persist();
    return async (madeNothing) => {
      if (!madeNothing || server.resuming) return;
      const now = await holder();
      await (now?.forget(intent.id) ?? dropIntent(dir, intent.id, false));
    };
  }
  return recordStart(dir, intent, {
    take: async () => {
      const taken = workspaceKey(dir, 'mcp');
      await taken.acquire();
      server.locks.set(dir, taken);
      return taken;
    },
    settings: server.settings,
    resuming: server.resuming,
    holder,
    released: () => server.locks.delete(dir),
  });
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
  settings: Pick<Settings, 'secrets' | 'seam'>,
  resuming = false,
): StartSteps<Lease> {
  return {
    record: (recorded) =>
      recordMcpStart(dir, recorded, {
        opened: () => workspaces.opened(dir)?.catch(() => undefined),
        locks: workspaces.startLocks,
        settings,
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
