import type { LockInspection } from '../../adapters/state/lock.js';
import type { Driver } from '../../core/view/standing.js';

/** The live holder of a workspace's lock, as the process driving its run; none when it is gone. */
export function lockDriver(lock: LockInspection | undefined): Driver | undefined {
  if (lock === undefined || lock.state === 'stale') return undefined;
  const { command, pid } = lock.owner;
  return {
    who: `${command === undefined ? 'maker' : `maker ${command}`}, pid ${pid}`,
    sure: lock.state === 'live',
  };
}

/** This process, as the driver of a run it is running (`what`: `maker run`, Gemini CLI's server). */
export function thisProcess(what: string): Driver {
  return { who: `${what}, pid ${process.pid}`, sure: true };
}
