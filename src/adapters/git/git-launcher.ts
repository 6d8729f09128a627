import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { MakerError } from '../../core/errors.js';

/**
 * Ends a long-lived child that exits when its stdin closes: closes stdin, SIGKILLs it if it is still
 * there after 2 s, and resolves once it is gone (at once if it already is).
 */
export async function endProcess(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
    child.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    child.stdin.end();
  });
}

/**
 * Whether a long-lived child (and its pipes) keeps Node's event loop alive: only while work waits
 * on it, so an idle one never holds the process open.
 */
export function refProcess(
  child: ChildProcessWithoutNullStreams | undefined,
  active: boolean,
): void {
  if (child === undefined) return;
  for (const handle of [child, child.stdin, child.stdout, child.stderr] as {
    ref?: () => void;
    unref?: () => void;
  }[])
    if (active) handle.ref?.();
    else handle.unref?.();
}

/** What a process ended with; `error` when it could not be run at all. */
export interface SpawnResult {
  readonly code: number | null;
  readonly stdout: Buffer;
  readonly stderr: string;
  readonly error?: string;
}

/**
 * The helper's program (CommonJS, run by `node -e`): reads one JSON request a line on stdin
 * (`{id, file, args, env, input}`, input in base64), starts `file` with `args` and exactly `env`
 * (no shell: `spawn` of the program itself), says `{id, pid}` once it runs, then `{id, code,
 * signal, out, err, error}` when it ends (out in base64). When its stdin closes (its owner closed
 * it, or died) it lets the processes under way finish and exits.
 */
const HELPER = `
const { spawn } = require('node:child_process');
const say = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  for (let eol = buffer.indexOf('\\n'); eol >= 0; eol = buffer.indexOf('\\n')) {
    const line = buffer.slice(0, eol);
    buffer = buffer.slice(eol + 1);
    start(JSON.parse(line));
  }
});
function start(r) {
  const out = [];
  const err = [];
  let error;
  const child = spawn(r.file, r.args, { env: r.env, stdio: ['pipe', 'pipe', 'pipe'] });
  if (child.pid !== undefined) say({ id: r.id, pid: child.pid });
  child.stdout.on('data', (d) => out.push(d));
  child.stderr.on('data', (d) => err.push(d));
  child.on('error', (e) => { error = e.message; });
  child.on('close', (code, signal) => say({ id: r.id, code, signal, error,
    out: Buffer.concat(out).toString('base64'), err: Buffer.concat(err).toString('utf8') }));
  child.stdin.on('error', () => undefined);
  child.stdin.end(Buffer.from(r.input, 'base64'));
}
`;

/** One answer line of the helper. */
interface HelperLine {
  readonly id: number;
  readonly pid?: number;
  readonly code?: number | null;
  readonly signal?: string | null;
  readonly error?: string;
  readonly out?: string;
  readonly err?: string;
}

interface InFlight {
  readonly done: (result: SpawnResult | undefined) => void;
  pid?: number;
}

interface Helper {
  readonly child: ChildProcessWithoutNullStreams;
  readonly inFlight: Map<number, InFlight>;
}

/** What a launcher's test seam is told: the nth request (from 1) was just handed to its helper. */
export type LauncherSeam = (request: number, helper: ChildProcessWithoutNullStreams) => void;

/**
 * Starts processes from a small long-lived helper, a Node process running {@link HELPER} (no
 * shell, and no start-up file of anyone's: it and every process it starts get exactly the
 * environment given here), so that starting one costs a fork of that small process rather than
 * of this (large) one, which blocks the event loop for milliseconds per process. Started on first
 * use; while idle it does not keep Node running; {@link close} stops it.
 *
 * A helper that dies (killed, out of memory) is noticed at once: the processes it had under way
 * are killed, and each request is sent again once to a new helper (every git command MAKER runs
 * is safe to repeat: objects are content-addressed, ref moves compare-and-swap). A request whose
 * helper dies twice fails with `code: null` and `error`, a transport failure, never a hang.
 */
export class GitLauncher {
  readonly #env: Readonly<Record<string, string>>;
  readonly #seam: LauncherSeam | undefined;
  #helper: Helper | undefined;
  #next = 1;
  #sent = 0;
  #closed = false;

  /**
   * `env`: the environment every process gets (a request's own variables are added to it).
   * `seam` (tests only) is told of each request handed to a helper, and may kill it.
   */
  constructor(env: Readonly<Record<string, string>>, seam?: LauncherSeam) {
    this.#env = env;
    this.#seam = seam;
  }

  /** The helper's process id while it runs (for tests). */
  get pid(): number | undefined {
    return this.#helper?.child.pid;
  }

  /** Runs `file …args` with `extraEnv` added and `input` on stdin. */
  async run(
    file: string,
    args: readonly string[],
    extraEnv: Readonly<Record<string, string>>,
    input: string | Uint8Array,
  ): Promise<SpawnResult> {
    if (this.#closed) throw new MakerError('git-spawn', 'The git launcher is closed.');
    const request = {
      file,
      args: [...args],
      env: { ...this.#env, ...extraEnv },
      input: Buffer.from(input).toString('base64'),
    };
    for (let attempt = 1; ; attempt++) {
      const result = await this.#send(request);
      if (result !== undefined) return result;
      if (attempt === 2 || this.#closed)
        return {
          code: null,
          stdout: Buffer.alloc(0),
          stderr: '',
          error: 'the git launcher stopped (killed?) while running it, twice',
        };
    }
  }

  /** Stops the helper (its stdin closed, SIGKILL if it lingers). */
  async close(): Promise<void> {
    this.#closed = true;
    const helper = this.#helper;
    this.#helper = undefined;
    if (helper !== undefined) await endProcess(helper.child);
  }

  /** Hands `request` to the helper; undefined when the helper died before it answered. */
  #send(request: object): Promise<SpawnResult | undefined> {
    let helper: Helper;
    try {
      helper = this.#helper ?? this.#start();
    } catch (error) {
      return Promise.resolve({
        code: null,
        stdout: Buffer.alloc(0),
        stderr: '',
        error: (error as Error).message,
      });
    }
    const id = this.#next++;
    return new Promise((resolve) => {
      helper.inFlight.set(id, { done: resolve });
      refProcess(helper.child, true);
      helper.child.stdin.write(`${JSON.stringify({ ...request, id })}\n`);
      this.#sent += 1;
      this.#seam?.(this.#sent, helper.child);
    });
  }

  #start(): Helper {
    const child = spawn(process.execPath, ['-e', HELPER], {
      env: {},
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const helper: Helper = { child, inFlight: new Map() };
    let buffer = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      for (let eol = buffer.indexOf('\n'); eol >= 0; eol = buffer.indexOf('\n')) {
        const line = JSON.parse(buffer.slice(0, eol)) as HelperLine;
        buffer = buffer.slice(eol + 1);
        const waiting = helper.inFlight.get(line.id);
        if (waiting === undefined) continue;
        if (line.pid !== undefined) {
          waiting.pid = line.pid;
          continue;
        }
        helper.inFlight.delete(line.id);
        waiting.done({
          code: line.code ?? null,
          stdout: Buffer.from(line.out ?? '', 'base64'),
          stderr: line.err ?? '',
          ...(line.error === undefined
            ? line.code === null && line.signal !== null
              ? { error: `killed by ${line.signal ?? 'a signal'}` }
              : {}
            : { error: line.error }),
        });
      }
      if (helper.inFlight.size === 0) refProcess(child, false);
    });
    child.stderr.on('data', () => undefined);
    child.stdin.on('error', () => undefined);
    const gone = () => {
      if (this.#helper === helper) this.#helper = undefined;
      // Orphans of a killed helper would go on writing (an index lock held): ended first.
      for (const [id, waiting] of helper.inFlight) {
        helper.inFlight.delete(id);
        if (waiting.pid !== undefined) killQuietly(waiting.pid);
        waiting.done(undefined);
      }
    };
    // 'exit', not 'close': a process still running holds the helper's stdout open.
    child.on('exit', gone);
    child.on('error', gone);
    this.#helper = helper;
    refProcess(child, false);
    return helper;
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Runs one process directly from Node. */
export function direct(
  file: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  input: string | Uint8Array,
): Promise<SpawnResult> {
  return new Promise((resolve) => {
    const child = spawn(file, [...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let failed: string | undefined;
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => {
      failed = error.message;
    });
    child.on('close', (code) => {
      resolve({
        code,
        stdout: Buffer.concat(out),
        stderr: Buffer.concat(err).toString('utf8'),
        ...(failed === undefined ? {} : { error: failed }),
      });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}
