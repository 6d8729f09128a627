import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { MakerError } from '../../core/errors.js';
import { gitBinary } from './git-binary.js';
import { countGitProcess, gitEnv } from './run-git.js';
import { endProcess, refProcess } from './git-launcher.js';

/**
 * Where a response ends in the bytes read so far: its length, or undefined while more must come.
 * Called with everything read since the request was written.
 */
export type ResponseEnd = (out: Buffer) => number | undefined;

interface Pending {
  readonly input: string | Uint8Array;
  readonly end: ResponseEnd;
  readonly resolve: (out: Buffer) => void;
  readonly reject: (error: Error) => void;
  /** Whether it was already sent to a process that was killed under it. */
  retried?: boolean;
}

/**
 * One long-lived `git -C dir …args` process answering requests on stdin/stdout, one request at a
 * time in order. Started on the first request; a process killed under a request (a signal) gets
 * it again, once, on a new process; one that dies otherwise, or twice, fails the request under
 * way with a `git-batch` error and is started afresh for the next one, so no request waits on a
 * dead process. While idle it does not keep Node running (its handles are
 * unref'd); {@link close} ends it.
 */
export class GitBatch {
  readonly #dir: string;
  readonly #args: readonly string[];
  readonly #env: Readonly<Record<string, string>>;
  #child: ChildProcessWithoutNullStreams | undefined;
  #queue: Pending[] = [];
  #current: Pending | undefined;
  #out: Buffer[] = [];
  #outLength = 0;
  #stderr = '';
  #closed = false;

  /** `env`: added to git's environment (where its objects are: a scratch object store). */
  constructor(dir: string, args: readonly string[], env: Readonly<Record<string, string>> = {}) {
    this.#dir = dir;
    this.#args = args;
    this.#env = env;
  }

  /** The process id while one runs (for tests that kill it). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Writes `input` and resolves with the response `end` delimits. */
  request(input: string | Uint8Array, end: ResponseEnd): Promise<Buffer> {
    if (this.#closed)
      return Promise.reject(new MakerError('git-batch', `git ${this.#args[0]} is closed.`));
    return new Promise((resolve, reject) => {
      this.#queue.push({ input, end, resolve, reject });
      this.#next();
    });
  }

  /** Ends the process (stdin closed, then SIGKILL if it lingers) and fails queued requests. */
  async close(): Promise<void> {
    this.#closed = true;
    const child = this.#child;
    this.#fail(new MakerError('git-batch', `git ${this.#args[0]} was closed.`));
    if (child !== undefined) await endProcess(child);
  }

  #next(): void {
    if (this.#current !== undefined) return;
    const pending = this.#queue.shift();
    if (pending === undefined) {
      this.#setRef(false);
      return;
    }
    this.#current = pending;
    this.#out = [];
    this.#outLength = 0;
    const child = this.#child ?? this.#start();
    this.#setRef(true);
    child.stdin.write(pending.input);
  }

  #start(): ChildProcessWithoutNullStreams {
    countGitProcess(this.#args);
    const child = spawn(gitBinary(), ['-C', this.#dir, ...this.#args], {
      env: gitEnv(this.#env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.#child = child;
    this.#stderr = '';
    child.stdout.on('data', (chunk: Buffer) => this.#onData(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-4000);
    });
    child.stdin.on('error', () => undefined); // a dead process: reported by 'close'
    const died = (why: string, killed: boolean) => {
      if (this.#child !== child) return;
      this.#child = undefined;
      // Killed from outside (a signal: SIGKILL, the out-of-memory killer), not git's own refusal:
      // the request under way is sent once more, to a new process (every request is safe to repeat).
      const current = this.#current;
      if (killed && current !== undefined && current.retried !== true && !this.#closed) {
        current.retried = true;
        this.#current = undefined;
        this.#queue.unshift(current);
        this.#next();
        return;
      }
      const first = this.#stderr.split('\n').find((l) => l.trim() !== '') ?? why;
      this.#fail(
        new MakerError('git-batch', `git ${this.#args[0]} stopped: ${first.trim()}`, {
          cause: new Error(this.#stderr),
          isRetryable: killed,
        }),
        false,
      );
    };
    child.on('error', (error) => died(error.message, false));
    child.on('close', (code, signal) => died(`exit ${code ?? signal ?? '?'}`, signal !== null));
    return child;
  }

  #onData(chunk: Buffer): void {
    const current = this.#current;
    if (current === undefined) return; // nothing asked: ignore (never expected)
    this.#out.push(chunk);
    this.#outLength += chunk.length;
    const out = this.#out.length === 1 ? chunk : Buffer.concat(this.#out, this.#outLength);
    this.#out = [out];
    const length = current.end(out);
    if (length === undefined) return;
    this.#current = undefined;
    current.resolve(out.subarray(0, length));
    this.#next();
  }

  /** Fails the request under way; with `all`, the queued ones too (else the queue goes on, on a new process). */
  #fail(error: Error, all = true): void {
    const current = this.#current;
    this.#current = undefined;
    current?.reject(error);
    if (all) {
      for (const p of this.#queue.splice(0)) p.reject(error);
      this.#setRef(false);
    } else if (!this.#closed) this.#next();
  }

  #setRef(active: boolean): void {
    refProcess(this.#child, active);
  }
}

/** A response that ends at the `count`-th newline. */
export function lines(count: number): ResponseEnd {
  return (out) => {
    let at = -1;
    for (let i = 0; i < count; i++) {
      at = out.indexOf(0x0a, at + 1);
      if (at < 0) return undefined;
    }
    return at + 1;
  };
}

/** A response that ends with the line `marker` (the echo of a sentinel line). */
export function untilMarker(marker: string): ResponseEnd {
  const tail = Buffer.from(`${marker}\n`);
  return (out) => {
    const at = out.indexOf(tail);
    if (at < 0) return undefined;
    if (at > 0 && out[at - 1] !== 0x0a && out[at - 1] !== 0x00) return undefined;
    return at + tail.length;
  };
}
