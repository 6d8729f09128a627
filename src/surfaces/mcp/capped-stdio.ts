import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { refusalOf } from './frame-guard.js';

/** The largest JSON-RPC frame read (1 MiB): tool arguments are bounded far below it. */
export const MAX_FRAME_BYTES = 1024 * 1024;

/**
 * MCP over stdio (newline-delimited JSON-RPC), with every frame bounded: a frame over the cap is
 * refused before it is parsed (its bytes skipped up to its newline, never buffered whole; a -32600
 * error answers it) and the server keeps serving; a frame that is not JSON gets -32700; a request
 * carrying a forbidden key (`__proto__`) is refused as an unknown key is ({@link refusalOf}).
 */
export class CappedStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #stdin: NodeJS.ReadableStream;
  readonly #stdout: NodeJS.WritableStream;
  readonly #max: number;
  #chunks: Buffer[] = [];
  #size = 0;
  /** Inside a frame over the cap: its bytes are dropped up to its newline. */
  #skipping = false;

  constructor(
    stdin: NodeJS.ReadableStream = process.stdin,
    stdout: NodeJS.WritableStream = process.stdout,
    maxFrameBytes = MAX_FRAME_BYTES,
  ) {
    this.#stdin = stdin;
    this.#stdout = stdout;
    this.#max = maxFrameBytes;
  }

  start(): Promise<void> {
    this.#stdin.on('data', this.#onData);
    this.#stdin.on('error', this.#onError);
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('error', this.#onError);
    if (this.#stdin.listenerCount('data') === 0) this.#stdin.pause();
    this.#chunks = [];
    this.#size = 0;
    this.onclose?.();
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.#stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.#stdout.once('drain', resolve);
    });
  }

  readonly #onError = (error: Error) => this.onerror?.(error);

  readonly #onData = (chunk: Buffer | string) => {
    let rest = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (;;) {
      const end = rest.indexOf(0x0a);
      const part = end < 0 ? rest : rest.subarray(0, end);
      if (!this.#skipping) {
        if (this.#size + part.length > this.#max) {
          this.#skipping = true;
          this.#chunks = [];
          this.#size = 0;
          this.#reply({
            code: -32600,
            message: `Request too large: a frame over ${this.#max} bytes is refused unread.`,
          });
        } else {
          this.#chunks.push(part);
          this.#size += part.length;
        }
      }
      if (end < 0) return;
      if (this.#skipping) this.#skipping = false;
      else this.#frame(Buffer.concat(this.#chunks).toString('utf8').replace(/\r$/, ''));
      this.#chunks = [];
      this.#size = 0;
      rest = rest.subarray(end + 1);
    }
  };

  #frame(line: string): void {
    if (line.trim() === '') return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      this.#reply({ code: -32700, message: 'Parse error: the frame is not JSON.' });
      return;
    }
    const refusal = refusalOf(raw);
    if (refusal !== undefined) {
      if (refusal.answer !== undefined) void this.send(refusal.answer).catch(() => undefined);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.onerror?.(new Error(`Invalid JSON-RPC message: ${parsed.error.message}`));
      return;
    }
    this.onmessage?.(parsed.data);
  }

  /** An error with no request id to answer (the frame was not read). */
  #reply(error: { code: number; message: string }): void {
    void this.send({ jsonrpc: '2.0', id: null, error } as unknown as JSONRPCMessage).catch(
      () => undefined,
    );
  }
}
