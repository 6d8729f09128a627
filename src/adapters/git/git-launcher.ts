import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MakerError } from '../../core/errors.js';
import { memoryScratchRoot, scratchDir } from './scratch.js';

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
 * The launcher: reads requests `<id>\0<stdin file>\0<n>\0<arg 1>\0…<arg n>\0` and runs each
 * command in the background, its output in `<id>.out`/`<id>.err` under `$1`, then prints
 * `<id> <exit status>`. When its stdin closes (its owner closed it, or died) it lets the commands
 * under way finish, removes `$1` and exits.
 */
const SCRIPT = `
S="$1"
while IFS= read -r -d '' id && IFS= read -r -d '' in && IFS= read -r -d '' n; do
  a=()
  for ((i = 0; i < n; i++)); do IFS= read -r -d '' x; a+=("$x"); done
  { "\${a[@]}" <"$in" >"$S/$id.out" 2>"$S/$id.err"; echo "$id $?"; } &
done
wait
rm -rf -- "$S"
`;

/**
 * Starts processes from a small long-lived `bash`, so that starting one costs a fork of that
 * shell rather than of this (large) Node process, which blocks the event loop for milliseconds
 * per process. Started on first use; while idle it does not keep Node running; {@link close}
 * stops it. If it dies, the processes under way fail with `git-spawn` and the next call starts a
 * new one. Without bash, processes are started directly.
 */
export class GitLauncher {
  readonly #env: Readonly<Record<string, string>>;
  #shell: { child: ChildProcessWithoutNullStreams; scratch: string } | undefined;
  #starting: Promise<{ child: ChildProcessWithoutNullStreams; scratch: string }> | undefined;
  #pending = new Map<string, (status: number | null, error?: string) => void>();
  #next = 1;
  #noBash = false;
  #closed = false;

  /** `env`: the environment every process gets (a request's own variables are added to it). */
  constructor(env: Readonly<Record<string, string>>) {
    this.#env = env;
  }

  /** The shell's process id while it runs (for tests). */
  get pid(): number | undefined {
    return this.#shell?.child.pid;
  }

  /** Runs `file …args` with `extraEnv` added and `input` on stdin. */
  async run(
    file: string,
    args: readonly string[],
    extraEnv: Readonly<Record<string, string>>,
    input: string | Uint8Array,
  ): Promise<SpawnResult> {
    if (this.#closed) throw new MakerError('git-spawn', 'The git launcher is closed.');
    // Requests are NUL-framed: a NUL in an argument or a variable would split it (exec cannot
    // take one either). Variables go on `env`'s command line, visible to other local users, so
    // nothing secret may pass through here (git authentication goes through `direct`).
    for (const piece of [file, ...args, ...Object.keys(extraEnv), ...Object.values(extraEnv)])
      if (piece.includes('\0'))
        throw new MakerError('git-spawn', 'A git argument holds a NUL character; refused.');
    if (this.#noBash) return direct(file, args, { ...this.#env, ...extraEnv }, input);
    const shell = await this.#shellReady().catch(() => undefined);
    if (shell === undefined) return direct(file, args, { ...this.#env, ...extraEnv }, input);
    const id = String(this.#next++);
    const base = join(shell.scratch, id);
    const inFile = input.length === 0 ? '/dev/null' : `${base}.in`;
    if (inFile !== '/dev/null') await writeFile(inFile, input);
    const env = Object.entries(extraEnv).map(([k, v]) => `${k}=${v}`);
    const argv = env.length === 0 ? [file, ...args] : ['env', ...env, file, ...args];
    const status = await new Promise<{ code: number | null; error?: string }>((resolve) => {
      this.#pending.set(id, (code, error) =>
        resolve(error === undefined ? { code } : { code, error }),
      );
      this.#setRef(true);
      shell.child.stdin.write(`${[id, inFile, String(argv.length), ...argv].join('\0')}\0`);
    });
    try {
      if (status.error !== undefined)
        return { code: null, stdout: Buffer.alloc(0), stderr: '', error: status.error };
      const [stdout, stderr] = await Promise.all([
        readFile(`${base}.out`),
        readFile(`${base}.err`, 'utf8'),
      ]);
      return { code: status.code, stdout, stderr };
    } finally {
      await Promise.all(['out', 'err', 'in'].map((ext) => rm(`${base}.${ext}`, { force: true })));
    }
  }

  /** Stops the shell (its stdin closed, SIGKILL if it lingers) and removes its scratch directory. */
  async close(): Promise<void> {
    this.#closed = true;
    const shell = this.#shell ?? (await this.#starting?.catch(() => undefined));
    this.#shell = undefined;
    if (shell === undefined) return;
    await endProcess(shell.child);
    await rm(shell.scratch, { recursive: true, force: true });
  }

  #shellReady(): Promise<{ child: ChildProcessWithoutNullStreams; scratch: string }> {
    if (this.#shell !== undefined) return Promise.resolve(this.#shell);
    this.#starting ??= this.#start().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #start(): Promise<{ child: ChildProcessWithoutNullStreams; scratch: string }> {
    const scratch = await scratchDir(await memoryScratchRoot(), 'spawn');
    const child = spawn('bash', ['-c', SCRIPT, 'maker-git-launcher', scratch], {
      env: this.#env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const shell = { child, scratch };
    let buffer = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      for (let eol = buffer.indexOf('\n'); eol >= 0; eol = buffer.indexOf('\n')) {
        const [id, code] = buffer.slice(0, eol).split(' ');
        buffer = buffer.slice(eol + 1);
        const done = this.#pending.get(id ?? '');
        this.#pending.delete(id ?? '');
        done?.(Number(code));
      }
      if (this.#pending.size === 0) this.#setRef(false);
    });
    child.stderr.on('data', () => undefined);
    child.stdin.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') this.#noBash = true;
        reject(error);
      });
    }).catch(async (error: unknown) => {
      await rm(scratch, { recursive: true, force: true });
      throw error;
    });
    // 'exit', not 'close': a command still running holds the shell's stdout open.
    child.on('exit', () => {
      if (this.#shell === shell) this.#shell = undefined;
      for (const [id, done] of this.#pending) {
        this.#pending.delete(id);
        done(null, 'the git launcher (bash) stopped');
      }
      void rm(scratch, { recursive: true, force: true });
    });
    this.#shell = shell;
    this.#setRef(false);
    return shell;
  }

  #setRef(active: boolean): void {
    refProcess(this.#shell?.child, active);
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
