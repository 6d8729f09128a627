import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { onTestFinished } from 'vitest';

/** The bundled CLI (vitest's global setup builds it). */
export const CLI = join(process.cwd(), 'dist', 'maker.js');
/** The bundled MCP server. */
export const MCP_SERVER = join(process.cwd(), 'dist', 'maker-mcp.js');

export interface MakerResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface SpawnOptions {
  /**
   * Variables on top of the bare environment (PATH and HOME only, so no key or GitHub setting of
   * the machine leaks in). A test that needs one of the host's variables passes it here by name.
   */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Leads a process group of its own: `-pid` signals it and every process it started. */
  readonly detached?: boolean;
  /** Its stdin is a pipe the test writes to (else it reads nothing). */
  readonly stdin?: boolean;
  /** The bundle to run: the CLI (default) or the MCP server. */
  readonly bundle?: string;
}

/** A running `maker` process, what it printed so far, and how it ended. */
/** A child process whose stdout and stderr are pipes. */
export type PipedChild = ChildProcess & { readonly stdout: Readable; readonly stderr: Readable };

export interface MakerProcess {
  readonly child: PipedChild;
  /** Its stdin when spawned with `stdin: true`. */
  readonly stdin: Writable | null;
  /** Its pid (with `detached`, also its group's id). */
  readonly pid: number;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly running: () => boolean;
  /** Settles once it exited: with its exit and all it printed, or with the error that kept it from starting. */
  readonly ended: Promise<MakerResult>;
}

/** The bare environment every spawned `maker` gets: PATH and HOME, then `env`. */
export function bareEnv(env: Readonly<Record<string, string>> = {}): Record<string, string> {
  return { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env };
}

/** Starts `maker <args>` (or `options.bundle`) with a bare environment; stdout and stderr are read as UTF-8. */
export function spawnMaker(args: readonly string[], options: SpawnOptions = {}): MakerProcess {
  const child = spawn(process.execPath, [options.bundle ?? CLI, ...args], {
    stdio: [options.stdin === true ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    env: bareEnv(options.env),
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.detached === true ? { detached: true } : {}),
  }) as PipedChild;
  const out = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out.stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (out.stderr += c));
  const ended = new Promise<MakerResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal, ...out }));
  });
  // A test that never awaits `ended` must not see an unhandled rejection.
  ended.catch(() => undefined);
  return {
    child,
    stdin: child.stdin,
    pid: child.pid ?? -1,
    stdout: () => out.stdout,
    stderr: () => out.stderr,
    running: () => child.exitCode === null && child.signalCode === null,
    ended,
  };
}

/**
 * Runs `maker <args>` as its own process with a bare environment (see {@link spawnMaker}), and
 * collects its exit and output. Called in a test, a process still running when the test ends (a
 * timeout) is killed, and the end of what it printed is shown: a hung run says where it stopped.
 */
export function maker(
  args: readonly string[],
  env: Record<string, string> = {},
  options: Omit<SpawnOptions, 'env'> = {},
): Promise<MakerResult> {
  const run = spawnMaker(args, { ...options, env });
  try {
    onTestFinished(() => {
      if (!run.running()) return;
      run.child.kill('SIGKILL');
      console.error(
        `maker ${args.join(' ')} was still running when its test ended; the end of its stderr:\n${run.stderr().slice(-4000)}`,
      );
    });
  } catch {
    // Outside a test (a beforeAll): its hooks' own timeouts apply.
  }
  return run.ended;
}

/** `maker <args>` that must succeed (exit 0): its output, else an error with the end of its stderr. */
export async function makerOk(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<MakerResult> {
  const result = await maker(args, env);
  if (result.code !== 0)
    throw new Error(
      `maker ${args.join(' ')} exited ${result.code}:\n${result.stderr.slice(-2000)}`,
    );
  return result;
}

/** `maker run "a tool" --dir <dir> --worker sim --hitl auto <flags>`: a sim run that asks no one. */
export function simRun(
  dir: string,
  flags: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<MakerResult> {
  return maker(['run', 'a tool', '--dir', dir, '--worker', 'sim', '--hitl', 'auto', ...flags], env);
}
