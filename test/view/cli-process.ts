import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawnMaker } from '../helpers/cli.js';

export { CLI } from '../helpers/cli.js';

/** The bundled CLI as a child process, with what it printed so far and a way to stop it. */
export interface CliProcess {
  readonly child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first text on `stream` matching `pattern` (its first group, or the match). */
  waitFor(stream: 'stdout' | 'stderr', pattern: RegExp): Promise<string>;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  /** Sends SIGINT (Ctrl-C) and waits for the end; SIGKILL if it is still there after 10 s. */
  interrupt(): Promise<number | null>;
}

export function startCli(args: readonly string[], env: Record<string, string> = {}): CliProcess {
  const run = spawnMaker(args, { env, stdin: true });
  const child = run.child as ChildProcessWithoutNullStreams;
  const out = {
    get stdout() {
      return run.stdout();
    },
    get stderr() {
      return run.stderr();
    },
  };
  const waiters: { stream: 'stdout' | 'stderr'; pattern: RegExp; resolve: (s: string) => void }[] =
    [];
  const check = () => {
    for (const w of [...waiters]) {
      const m = w.pattern.exec(out[w.stream]);
      if (m !== null) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m[1] ?? m[0]);
      }
    }
  };
  child.stdout.on('data', check);
  child.stderr.on('data', check);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => out.stdout,
    stderr: () => out.stderr,
    waitFor: (stream, pattern) =>
      new Promise((resolve, reject) => {
        waiters.push({ stream, pattern, resolve });
        check();
        void exited.then(() =>
          reject(
            new Error(`maker ${args.join(' ')} ended before printing ${pattern}:\n${out.stderr}`),
          ),
        );
      }),
    exited,
    interrupt: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
