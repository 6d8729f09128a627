import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** One `node --test` file to run in its own product tree. */
export interface BatchCase {
  /** The product's directory: the file's working directory and home, as if run from there. */
  readonly dir: string;
  /** The test file, relative to `dir`. */
  readonly file: string;
}

/** How one case's file ended, counted as `node --test`'s TAP summary counts (tests, fail + cancelled). */
export interface BatchResult {
  readonly tests: number;
  readonly failed: number;
  /** The whole batch hit its deadline (then no case is known to have passed). */
  readonly timedOut: boolean;
  /** The failures' names and errors and the file's output, for a person to see why. */
  readonly tail: string;
}

/**
 * Set before each file's own process loads it (`--import`, which `node --test` passes on to the
 * process it starts per file): the working directory and home of the file's product, as a
 * `node --test <file>` started in that directory has them.
 */
const PREAMBLE = `
const map = JSON.parse(process.env.MAKER_BATCH_DIRS ?? '{}');
delete process.env.MAKER_BATCH_DIRS;
const dir = map[process.argv[1]];
if (dir !== undefined) {
  process.chdir(dir);
  process.env.HOME = dir;
}
`;

/** Counts each file's tests and failures from the runner's events (its TAP summary's counts, by file). */
const REPORTER = `
export default async function* (source) {
  const byFile = {};
  const of = (file) => (byFile[file] ??= { tests: 0, failed: 0, tail: '' });
  const note = (file, text) => { const f = of(file); f.tail = (f.tail + text).slice(-1500); };
  for await (const event of source) {
    const { file } = event.data ?? {};
    if (file === undefined) continue;
    if (event.type === 'test:pass' || event.type === 'test:fail') {
      if (event.data.details?.type === 'suite') continue;
      of(file).tests++;
      if (event.type === 'test:fail') {
        of(file).failed++;
        note(file, 'not ok ' + event.data.name + ': ' + String(event.data.details?.error?.cause ?? event.data.details?.error?.message ?? '') + '\\n');
      }
    } else if (event.type === 'test:stdout' || event.type === 'test:stderr') note(file, event.data.message);
  }
  yield JSON.stringify(byFile) + '\\n';
}
`;

/**
 * Runs the test files of many product trees with ONE `node --test` (one runner, which starts a
 * process per file as always, one after another): the same verdicts as a `node --test <file>`
 * per tree (each file's process starts in its tree, with its tree as home, the same minimal
 * environment and flags), for one runner's start instead of one per tree. `flags` are the
 * runner's own (e.g. `--test-timeout=…`); `env` the environment every file's process gets.
 * Every case's result, in order; the batch is killed at `deadlineMs` (then all are `timedOut`).
 */
export async function nodeTestBatch(
  cases: readonly BatchCase[],
  env: Record<string, string>,
  flags: readonly string[] = [],
  deadlineMs = 30_000 * Math.max(1, cases.length),
): Promise<BatchResult[]> {
  const helper = await mkdtemp(join(tmpdir(), 'maker-batch-'));
  try {
    await writeFile(join(helper, 'preamble.mjs'), PREAMBLE);
    await writeFile(join(helper, 'reporter.mjs'), REPORTER);
    const files = cases.map((c) => resolve(c.dir, c.file));
    const dirs = Object.fromEntries(files.map((f, i) => [f, cases[i]?.dir]));
    const { stdout, timedOut, output } = await new Promise<{
      stdout: string;
      timedOut: boolean;
      output: string;
    }>((done) => {
      execFile(
        process.execPath,
        [
          '--test',
          `--test-reporter=${join(helper, 'reporter.mjs')}`,
          `--import=${join(helper, 'preamble.mjs')}`,
          ...flags,
          ...files,
        ],
        {
          cwd: helper,
          timeout: deadlineMs,
          killSignal: 'SIGKILL',
          maxBuffer: 8 * 1024 * 1024,
          env: { ...env, MAKER_BATCH_DIRS: JSON.stringify(dirs) },
        },
        (error, out, err) =>
          done({
            stdout: out,
            timedOut: error !== null && (error as { killed?: boolean }).killed === true,
            output: `${out}${err}`.slice(-1500),
          }),
      );
    });
    const byFile = timedOut
      ? {}
      : (JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<
          string,
          { tests: number; failed: number; tail: string }
        >);
    return files.map((f) => {
      const r = byFile[f];
      return {
        tests: r?.tests ?? 0,
        failed: r?.failed ?? 0,
        timedOut,
        tail: r?.tail ?? output,
      };
    });
  } finally {
    await rm(helper, { recursive: true, force: true });
  }
}
