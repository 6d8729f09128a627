import { join } from 'node:path';
import { runStanding, type Driver, type Standing } from '../core/view/standing.js';
import type { Run } from '../core/tree/schema.js';
import { STATE_FILE_NAME } from '../core/workspace-files.js';
import { WorkspaceLock, type LockInspection } from '../adapters/state/lock.js';

/**
 * Who holds `dir`'s workspace lock, read without taking it: undefined when nobody does or the lock
 * file cannot be read now (a holder writing it).
 */
export function workspaceLockHolder(dir: string): Promise<LockInspection | undefined> {
  return WorkspaceLock.inspect(join(dir, `${STATE_FILE_NAME}.lock`)).catch(() => undefined);
}

/** The live holder of a workspace's lock, as the process driving its run; none when it is gone. */
export function lockDriver(lock: LockInspection | undefined): Driver | undefined {
  if (lock === undefined || lock.state === 'stale') return undefined;
  const { command, pid } = lock.owner;
  return {
    who: `${command === undefined ? 'maker' : `maker ${command}`}, pid ${pid}`,
    sure: lock.state === 'live',
  };
}

/**
 * The process driving the run in the repository `dir` now: the live holder of its lock. `except`:
 * a process that holds the lock without driving the run (an MCP server asked about a run it does
 * not run), counted as no driver.
 */
export async function workspaceDriver(dir: string, except?: number): Promise<Driver | undefined> {
  const lock = await WorkspaceLock.inspect(join(dir, `${STATE_FILE_NAME}.lock`));
  return lock?.owner.pid === except ? undefined : lockDriver(lock);
}

/**
 * The one reading of where a run stands, for `maker status`, `maker report`, the live view and
 * `maker_status`: the state file's status told apart by the process that drives it (`here`, this
 * process, when it does; else the workspace's lock holder, other than `except`).
 */
export async function standingOf(
  run: Run,
  dir: string,
  options: { here?: Driver | undefined; except?: number } = {},
): Promise<Standing> {
  return runStanding(run, dir, options.here ?? (await workspaceDriver(dir, options.except)));
}
