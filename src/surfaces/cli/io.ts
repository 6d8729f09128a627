/** Where a command writes: stdout for results, stderr for progress and diagnostics. Injected for tests. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Whether stderr is a terminal (progress is drawn only there). */
  readonly stderrIsTty: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether questions can be asked on stdin. */
  readonly stdinIsTty: boolean;
  readonly cwd: string;
}

export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stderrIsTty: process.stderr.isTTY === true,
    env: process.env,
    stdinIsTty: process.stdin.isTTY === true,
    cwd: process.cwd(),
  };
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
