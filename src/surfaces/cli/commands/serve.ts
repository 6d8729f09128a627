import { UsageError } from '../../../core/errors.js';
import { flag } from '../define.js';

/** `--stdin-lifetime`: the opt-in for a parent that owns the server and ends it by closing its input. */
export const stdinLifetimeFlag = flag(
  '--stdin-lifetime',
  'also stop when standard input closes (for a script or test that owns this process)',
);

export const SERVE_NOTE = `Runs until interrupted (Ctrl-C) or terminated (SIGTERM); with --stdin-lifetime,
also until its standard input closes. Started in the background (\`&\`, or with
input from /dev/null), it keeps serving.`;

/**
 * Waits until the server should stop: the command's signal (Ctrl-C), SIGTERM, or, only when asked,
 * the end of standard input. A closed input alone never stops it: `maker fake-github &` in a script
 * (input from /dev/null) must keep serving for the script's next step.
 */
export function untilStopped(
  signal: AbortSignal | undefined,
  stdinLifetime: boolean,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGTERM', stop);
      if (stdinLifetime) {
        process.stdin.off('end', stop);
        process.stdin.off('close', stop);
        process.stdin.pause();
      }
      resolve();
    };
    if (signal?.aborted === true) return stop();
    signal?.addEventListener('abort', stop, { once: true });
    process.once('SIGTERM', stop);
    if (stdinLifetime) {
      process.stdin.on('end', stop);
      process.stdin.on('close', stop);
      process.stdin.resume();
    }
  });
}

/**
 * `start()`, a fake server's start on `port`: a port another process holds is said as what to
 * do, not as the socket's error.
 */
export async function listening<T>(port: number | undefined, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    if (port !== undefined && (error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new UsageError(
        `Port ${port} of 127.0.0.1 is in use already: give another --port, or leave --port out for a free one.`,
      );
    throw error;
  }
}
