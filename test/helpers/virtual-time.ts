import { AbortedError } from '../../src/core/errors.js';

/**
 * A virtual clock for code that takes `now` and `sleep`: pending sleeps wake in order of their wake
 * time, the clock jumping to each (after a real millisecond, so concurrent work can start its own
 * sleeps first). Sleeps that overlap in virtual time overlap, as in real time; minutes pass at once.
 */
export function virtualTime(start = Date.parse('2026-11-23T09:00:00Z')) {
  let now = start;
  const pending: { wake: number; resolve: () => void }[] = [];
  let timer: NodeJS.Timeout | undefined;
  const pump = () => {
    if (timer !== undefined || pending.length === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      pending.sort((a, b) => a.wake - b.wake);
      now = Math.max(now, pending[0]?.wake ?? now);
      for (const sleeper of pending.filter((p) => p.wake <= now)) {
        pending.splice(pending.indexOf(sleeper), 1);
        sleeper.resolve();
      }
      pump();
    }, 1);
  };
  return {
    now: () => now,
    date: () => new Date(now),
    advance: (ms: number) => void (now += ms),
    sleep: (ms: number, signal?: AbortSignal): Promise<void> => {
      if (signal?.aborted) return Promise.reject(new AbortedError(signal.reason));
      return new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          const at = pending.indexOf(sleeper);
          if (at >= 0) pending.splice(at, 1);
          reject(new AbortedError(signal?.reason));
        };
        const sleeper = {
          wake: now + Math.max(0, ms),
          resolve: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        pending.push(sleeper);
        pump();
      });
    },
  };
}
