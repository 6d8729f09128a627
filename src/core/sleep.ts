import { AbortedError } from './errors.js';

/**
 * Resolves after `ms`, or rejects with {@link AbortedError} as soon as `signal` aborts. Leaves no
 * listener on `signal` either way, so a signal shared by many sleeps never accumulates them.
 */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(new AbortedError(signal.reason));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortedError(signal?.reason));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
