import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ProductIdea } from '../../offline/product/types.js';

/** Where hidden tests are put in a product's tree (a name no built-in leaf writes). */
export const HIDDEN_DIR = '.hidden-acceptance';

export interface HiddenResult {
  /** Every hidden test ran and passed. */
  readonly passed: boolean;
  readonly tests: number;
  readonly failed: number;
  /** The run hit its time limit. */
  readonly timedOut: boolean;
  /** The tail of the runner's output, for a person to see why. */
  readonly tail: string;
}

/** Writes files (paths relative to `dir`) under `dir`. */
export async function writeTree(
  dir: string,
  files: readonly { readonly path: string; readonly content: string }[],
): Promise<void> {
  for (const file of files) {
    const at = join(dir, file.path);
    await mkdir(dirname(at), { recursive: true });
    await writeFile(at, file.content);
  }
}

/**
 * Runs an idea's hidden acceptance tests on the product in `dir`: writes them under
 * {@link HIDDEN_DIR}, then spawns `node --test` on them directly (no shell, the product's
 * directory as working directory, a minimal environment) with a time limit (a third of it per
 * test, so a product that hangs one test still has the others run). The TAP summary
 * gives the counts; the exit status decides `passed`. A Python idea's run with `python3 -m
 * unittest discover` instead (its summary, "Ran N tests" and "FAILED (failures=…, errors=…)",
 * gives the counts).
 */
export async function runHiddenTests(
  dir: string,
  idea: ProductIdea,
  timeoutMs = 30_000,
): Promise<HiddenResult> {
  await writeTree(
    dir,
    idea.hiddenTests.map((t) => ({ path: `${HIDDEN_DIR}/${t.path}`, content: t.content })),
  );
  const files = idea.hiddenTests.map((t) => `${HIDDEN_DIR}/${t.path}`);
  // Its temporary files go in a directory of their own, removed after: a product (or a test)
  // that leaves some behind leaves nothing in the machine's /tmp.
  const tmp = await mkdtemp(join(tmpdir(), 'maker-hidden-'));
  try {
    return await spawnHiddenTests(dir, files, tmp, timeoutMs, idea.runtime ?? 'node');
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

function spawnHiddenTests(
  dir: string,
  files: readonly string[],
  tmp: string,
  timeoutMs: number,
  runtime: 'node' | 'python',
): Promise<HiddenResult> {
  const [command, args] =
    runtime === 'python'
      ? ['python3', ['-m', 'unittest', 'discover', '-s', HIDDEN_DIR, '-p', '*.py']]
      : [
          process.execPath,
          ['--test', '--test-reporter=tap', `--test-timeout=${Math.ceil(timeoutMs / 3)}`, ...files],
        ];
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        cwd: dir,
        timeout: timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: 8 * 1024 * 1024,
        env: {
          PATH: process.env['PATH'] ?? '/usr/bin:/bin',
          HOME: dir,
          TMPDIR: tmp,
          NODE_NO_WARNINGS: '1',
        },
      },
      (error, stdout, stderr) => {
        const count = (name: string) =>
          Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(stdout)?.[1] ?? 0);
        const said = (name: string) =>
          Number(new RegExp(`^FAILED \\(.*\\b${name}=(\\d+)`, 'm').exec(stderr)?.[1] ?? 0);
        const timedOut = error !== null && (error as { killed?: boolean }).killed === true;
        const python = runtime === 'python';
        const tests = python ? Number(/^Ran (\d+) tests?/m.exec(stderr)?.[1] ?? 0) : count('tests');
        const failed = python
          ? said('failures') + said('errors')
          : count('fail') + count('cancelled');
        resolve({
          passed: error === null && tests > 0 && failed === 0,
          tests,
          failed,
          timedOut,
          tail: `${stdout}${stderr}`.slice(-1500),
        });
      },
    );
  });
}
