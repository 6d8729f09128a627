import { createInterface } from 'node:readline';
import { z } from 'zod';
import { spawnGroup, type GroupChild } from './process-group.js';

/**
 * A client of the Agent Client Protocol as `gemini --acp` speaks it: JSON-RPC 2.0, one JSON object
 * per line on the child's stdin and stdout. MAKER is the client; the child is the agent. Only what
 * a plain model call needs is here: `initialize`, `session/new`, `session/prompt`, the
 * `session/cancel` notification, the `session/update` notifications that carry the answer, and a
 * refusal of every request the agent makes of the client (permission to run a tool, file access).
 */

/** A JSON-RPC error the agent answered with. */
export class AcpError extends Error {
  override readonly name = 'AcpError';
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

/** The child ended (or could not start): its exit code or signal, and the end of its stderr. */
export class AcpExit extends Error {
  override readonly name = 'AcpExit';
  readonly exitCode: number | null;
  readonly stderr: string;
  constructor(exitCode: number | null, signal: string | null, stderr: string, cause?: unknown) {
    super(
      cause instanceof Error
        ? `could not start: ${cause.message}`
        : `exited with ${exitCode === null ? `signal ${signal ?? '?'}` : `code ${exitCode}`}`,
      cause === undefined ? undefined : { cause },
    );
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

const messageSchema = z
  .object({
    id: z.union([z.number(), z.string()]).optional(),
    method: z.string().optional(),
    params: z.unknown().optional(),
    result: z.unknown().optional(),
    error: z.object({ code: z.number(), message: z.string() }).loose().optional(),
  })
  .loose();

export interface AcpSpawn {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

interface Pending {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

/** Keeps the last `max` characters of what a stream wrote (for an error message). */
const STDERR_KEPT = 4000;

export class AcpConnection {
  readonly #child: GroupChild;
  readonly #pending = new Map<number, Pending>();
  readonly #listeners = new Set<(method: string, params: unknown) => void>();
  readonly #output = new Set<(text: string) => void>();
  #nextId = 1;
  #stderr = '';
  #ended: AcpExit | undefined;
  /** When the child last wrote anything (ms, `Date.now()`): its silence watchdog's clock. */
  lastOutputAt = Date.now();
  readonly exited: Promise<AcpExit>;

  /** Spawns the agent in a process group of its own (never through a shell of the caller's). */
  constructor(spec: AcpSpawn) {
    this.#child = spawnGroup(spec.command, spec.args, { cwd: spec.cwd, env: spec.env });
    this.#child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      this.#stderr = (this.#stderr + text).slice(-STDERR_KEPT);
      this.#heard(text);
    });
    this.#child.stdout.on('data', (chunk: Buffer) => this.#heard(chunk.toString()));
    createInterface({ input: this.#child.stdout }).on('line', (line) => this.#receive(line));
    this.exited = this.#child.exited.then(({ code, signal, startError }) => {
      const ended = new AcpExit(code, signal, this.#stderr, startError);
      this.#ended = ended;
      for (const pending of this.#pending.values()) pending.reject(ended);
      this.#pending.clear();
      return ended;
    });
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Whether the child has ended. */
  get ended(): boolean {
    return this.#ended !== undefined;
  }

  /** What the child said on stderr lately (its last few thousand characters). */
  get stderr(): string {
    return this.#stderr;
  }

  /** Every chunk the child writes, on either stream (to spot a login prompt). */
  onOutput(listener: (text: string) => void): () => void {
    this.#output.add(listener);
    return () => this.#output.delete(listener);
  }

  #heard(text: string): void {
    this.lastOutputAt = Date.now();
    for (const listener of this.#output) listener(text);
  }

  /** Ends the child and everything it started, now. Pending requests reject with its exit. */
  kill(): void {
    this.#child.kill();
  }

  /** Sends a request and resolves with its result; rejects with {@link AcpError} or {@link AcpExit}. */
  request(method: string, params: unknown): Promise<unknown> {
    if (this.#ended !== undefined) return Promise.reject(this.#ended);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#send({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    if (this.#ended === undefined) this.#send({ jsonrpc: '2.0', method, params });
  }

  /** Every notification the agent sends; returns a function that stops listening. */
  onNotification(listener: (method: string, params: unknown) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Closes the agent's stdin (it ends on its own), then kills it if it has not within `graceMs`. */
  async close(graceMs = 1000): Promise<void> {
    if (this.#ended !== undefined) return;
    this.#child.stdin.end();
    const timer = setTimeout(() => this.#child.kill(), graceMs);
    timer.unref();
    await this.exited;
    clearTimeout(timer);
  }

  #send(message: unknown): void {
    this.#child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  #receive(line: string): void {
    let parsed: z.infer<typeof messageSchema>;
    try {
      parsed = messageSchema.parse(JSON.parse(line));
    } catch {
      return; // Not protocol (a stray log line): ignored.
    }
    if (parsed.method !== undefined && parsed.id !== undefined) {
      this.#answerAgentRequest(parsed.id, parsed.method);
      return;
    }
    if (parsed.method !== undefined) {
      for (const listener of this.#listeners) listener(parsed.method, parsed.params);
      return;
    }
    if (typeof parsed.id !== 'number') return;
    const pending = this.#pending.get(parsed.id);
    if (pending === undefined) return;
    this.#pending.delete(parsed.id);
    if (parsed.error !== undefined)
      pending.reject(new AcpError(parsed.error.code, parsed.error.message));
    else pending.resolve(parsed.result);
  }

  /**
   * MAKER grants the agent nothing: a permission request (to run a tool) is answered "cancelled",
   * anything else (reading or writing files, terminals) "method not found".
   */
  #answerAgentRequest(id: number | string, method: string): void {
    if (method === 'session/request_permission')
      this.#send({ jsonrpc: '2.0', id, result: { outcome: { outcome: 'cancelled' } } });
    else
      this.#send({
        jsonrpc: '2.0',
        id,
        error: { code: -32601, message: `MAKER does not offer ${method}` },
      });
  }
}
