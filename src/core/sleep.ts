import { AbortedError } from './errors.js';

/** Resolves after `ms`, or rejects with {@link AbortedError} as soon as `signal` aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(new AbortedError(signal.reason));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new AbortedError(signal.reason));
      },
      { once: true },
    );
  });
}
