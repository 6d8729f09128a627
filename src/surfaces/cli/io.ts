import { escapeControls } from '../../core/text.js';

/** Where a command writes: stdout for results, stderr for progress and diagnostics. Injected for tests. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Whether stderr is a terminal (progress is drawn only there). */
  readonly stderrIsTty: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether questions can be asked on stdin. */
  readonly stdinIsTty: boolean;
  /** The terminal's width in characters, where stderr is one. */
  readonly columns?: number | undefined;
  readonly cwd: string;
  /**
   * The keys every word printed is redacted of (`main` adds the environment's to the list given, or
   * makes one): the process's list, which grows as keys are found (`gh auth token`'s token joins
   * it when a command reads it). Commands read their settings over it (`readSettings(io.env,
   * choices, io.secrets)`).
   */
  readonly secrets?: string[];
}

export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(forTerminal(text)),
    stderr: (text) => process.stderr.write(forTerminal(text)),
    stderrIsTty: process.stderr.isTTY === true,
    env: process.env,
    stdinIsTty: process.stdin.isTTY === true,
    columns: process.stderr.isTTY === true ? process.stderr.columns : undefined,
    cwd: process.cwd(),
  };
}

/** A reader that went away (`maker help run | head -1`) ends the output, not the command. */
export function ignoreClosedReader(error: NodeJS.ErrnoException): void {
  if (error.code !== 'EPIPE') throw error;
}

/** What starts a progress line's write: a carriage return, and the escape that clears the line. */
// eslint-disable-next-line no-control-regex
const PROGRESS_START = /^\r(?:\x1b\[2K)?/;

/**
 * What a command writes, as it may reach a terminal: run content (titles, questions, a model's or a
 * service's words, file names) comes from models and services, so its control characters are shown
 * escaped, never acted on. Only maker's own progress line may begin a write by returning to the
 * line's start and clearing it.
 */
export function forTerminal(text: string): string {
  const start = PROGRESS_START.exec(text)?.[0] ?? '';
  return start + escapeControls(text.slice(start.length));
}

/** A one-line progress indicator on a TTY; a no-op elsewhere. */
export function progressLine(
  io: CliIo,
  label: string,
  now: () => number = () => performance.now(),
) {
  const started = now();
  let last = 0;
  return {
    update(done: number, total: number): void {
      if (!io.stderrIsTty) return;
      const t = now();
      if (t - last < 100 && done < total) return;
      last = t;
      const rate = done / Math.max((t - started) / 1000, 1e-3);
      const pct = total === 0 ? 100 : (100 * done) / total;
      io.stderr(
        `\r${label} ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} (${pct.toFixed(1)}%) ${Math.round(rate).toLocaleString('en-US')}/s   `,
      );
    },
    done(): void {
      if (io.stderrIsTty) io.stderr('\r\x1b[2K');
    },
  };
}

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}
