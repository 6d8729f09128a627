import { join } from 'node:path';
import { MakerError, UsageError } from '../core/errors.js';
import type { Run } from '../core/tree/schema.js';
import { abortableSleep } from '../core/sleep.js';
import { makerStateFile } from '../adapters/state/state-file.js';
import { STATE_FILE_NAME } from '../core/workspace-files.js';
import { WorkspaceLock, type LockInspection } from '../adapters/state/lock.js';

/** The processes that drive a run in the foreground, and stop it, state saved, on SIGINT. */
const FOREGROUND = new Set(['run', 'resume', 'demo']);

/** How long a cancelled process has to save its run and stop, unless the caller says otherwise. */
export const CANCEL_WAIT_MS = 60_000;

/** What {@link cancelRun} did. */
export interface Cancelled {
  /** The run as saved once it stopped (or as found, when nothing drove it). */
  readonly run: Run;
  /**
   * `here`: this process drove it and stopped it; `signalled`: the `maker` process driving it was
   * asked to stop (SIGINT, as Ctrl-C at its terminal) and did; `not-running`: nothing drives it.
   */
  readonly stopped: 'here' | 'signalled' | 'not-running';
  /** The process that drove it, in words (`maker run (pid 4242)`), when another one did. */
  readonly driver?: string;
}

export interface CancelOptions {
  /** The run; the one a process drives, else the latest, by default. */
  readonly runId?: string | undefined;
  /**
   * Stops the run if this process drives it (the MCP server's own runs), resolving once it has
   * stopped; false when it does not drive it.
   */
  readonly here?: (runId: string) => Promise<boolean>;
  /** How long the signalled process has to stop (default {@link CANCEL_WAIT_MS}). */
  readonly waitMs?: number;
  /** Told once the driving process has been signalled, before the wait. */
  readonly onSignalled?: (driver: string) => void;
  /** The pause between two looks at the lock and the state while waiting. */
  readonly pollMs?: number;
}

/**
 * The one cancel of a run, for `maker cancel` and `maker_cancel`: stopped where it is driven. A
 * run this process drives is stopped by `here`; one a `maker run`, `resume` or `demo` on this
 * machine drives is sent SIGINT (what Ctrl-C at its terminal does: the run is saved as cancelled,
 * its lock released) and waited for, with a deadline. Refused, with where to stop it instead: a
 * run driven by another host, by a Gemini CLI session's server, or by a process whose identity
 * cannot be made sure of (a pid is never signalled on a guess). A run no process drives is left as
 * it is (`not-running`): nothing to cancel.
 */
export async function cancelRun(dir: string, options: CancelOptions = {}): Promise<Cancelled> {
  const lockPath = join(dir, `${STATE_FILE_NAME}.lock`);
  const state = await makerStateFile(dir).load();
  const { starting } = state;
  if (starting !== undefined && (options.runId === undefined || options.runId === starting.id)) {
    const lock = await WorkspaceLock.inspect(lockPath);
    throw new UsageError(
      lock !== undefined && lock.state !== 'stale'
        ? `Run ${starting.id} is still starting in ${dir} (maker ${lock.owner.command ?? 'process'}, pid ${lock.owner.pid}): stop it at its terminal (Ctrl-C), or cancel it once it has started.`
        : `Run ${starting.id} was interrupted while starting (its maker process is gone): nothing runs to cancel. \`maker resume --dir ${dir}\` finishes its start.`,
    );
  }
  const run = pickRun(state.runs, options.runId, dir);
  if (await options.here?.(run.id)) return { run: await reload(dir, run), stopped: 'here' };
  const lock = await WorkspaceLock.inspect(lockPath);
  // This process holds the workspace but does not drive the run (`here` said so): nothing does.
  const driven = lock !== undefined && lock.state !== 'stale' && lock.owner.pid !== process.pid;
  if (!driven || run.status !== 'running') return { run, stopped: 'not-running' };
  const driver = `maker ${lock.owner.command ?? 'process'} (pid ${lock.owner.pid})`;
  refuseUnsure(run, dir, lock, driver);
  try {
    process.kill(lock.owner.pid, 'SIGINT');
  } catch (error) {
    throw new MakerError(
      'cancel-refused',
      `Could not ask ${driver} to stop run ${run.id}: ${(error as Error).message}. Stop it at its terminal (Ctrl-C).`,
    );
  }
  options.onSignalled?.(driver);
  const waitMs = options.waitMs ?? CANCEL_WAIT_MS;
  const until = Date.now() + waitMs;
  for (;;) {
    const now = await reload(dir, run);
    const holder = await WorkspaceLock.inspect(lockPath);
    const gone =
      holder === undefined || holder.state === 'stale' || holder.owner.pid !== lock.owner.pid;
    if (now.status !== 'running' || gone) return { run: now, stopped: 'signalled', driver };
    if (Date.now() >= until)
      throw new MakerError(
        'cancel-timeout',
        `${driver} was asked to stop run ${run.id} (SIGINT, as Ctrl-C) ${Math.round(waitMs / 1000)} s ago and is still running it: it may be finishing a step. See where it is with \`maker status --dir ${dir}\`. To stop it at once: kill ${lock.owner.pid} (the run is saved at every step; \`maker resume --dir ${dir}\` continues it).`,
      );
    await abortableSleep(options.pollMs ?? 200);
  }
}

/** Refuses to signal a driver this process cannot be sure of, or that is not a foreground run. */
function refuseUnsure(run: Run, dir: string, lock: LockInspection, driver: string): void {
  const { owner } = lock;
  if (lock.state === 'unknown')
    throw new MakerError(
      'cancel-refused',
      `Run ${run.id} is driven by ${driver}${owner.hostname === undefined ? '' : ` on ${owner.hostname}`}, which cannot be checked from here: stop it where it runs (Ctrl-C at its terminal).`,
    );
  if (owner.command === 'mcp')
    throw new MakerError(
      'cancel-refused',
      `Run ${run.id} is driven by the MAKER server of a Gemini CLI session (${driver}): cancel it there with maker_cancel (ask "cancel run ${run.id}"), or quit that Gemini CLI session; \`maker resume --dir ${dir}\` continues it later.`,
    );
  if (owner.command === undefined || !FOREGROUND.has(owner.command))
    throw new MakerError(
      'cancel-refused',
      `Run ${run.id} is in a workspace held by ${driver}, which is not a run MAKER can stop from here: stop it where it runs.`,
    );
  // A pid is signalled only when it is sure to be that very process (its start time matches).
  if (owner.startTime === undefined)
    throw new MakerError(
      'cancel-refused',
      `Run ${run.id} is driven by ${driver}, but its lock does not say when that process started, so pid ${owner.pid} cannot be made sure of: stop it at its terminal (Ctrl-C).`,
    );
}

async function reload(dir: string, run: Run): Promise<Run> {
  return (await makerStateFile(dir).load()).runs[run.id] ?? run;
}

/** The run named, else the one saved as running, else the latest. */
function pickRun(runs: Readonly<Record<string, Run>>, id: string | undefined, dir: string): Run {
  const all = Object.values(runs).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  if (id !== undefined) {
    const run = runs[id];
    if (run === undefined)
      throw new UsageError(
        `No run "${id}" in ${dir}. Runs: ${all.map((r) => r.id).join(', ') || 'none'}.`,
      );
    return run;
  }
  const run = all.filter((r) => r.status === 'running').at(-1) ?? all.at(-1);
  if (run === undefined) throw new UsageError(`No MAKER runs in ${dir}: nothing to cancel.`);
  return run;
}
