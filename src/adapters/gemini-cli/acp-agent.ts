import { z } from 'zod';
import { AbortedError, ApiCallError, ConfigError, type MakerError } from '../../core/errors.js';
import type { GenerateResult } from '../../ports/language-model.js';
import { AcpConnection, AcpError, AcpExit } from './acp-client.js';
import {
  SIGN_IN,
  childEnv,
  commonArgs,
  exitError,
  isDailyQuota,
  quotaStop,
  type CallDirectory,
} from './setup.js';

/**
 * One long-lived `gemini --acp` child and the calls made through it, each in its own session: a new
 * prompt in a session aborts that session's previous one, so concurrent calls never share one, and
 * a fresh session per call keeps calls independent (no earlier answer in its history).
 */

/** The ACP version MAKER speaks. */
const PROTOCOL_VERSION = 1;

const newSessionSchema = z.object({ sessionId: z.string() }).loose();
const promptResultSchema = z
  .object({
    stopReason: z.string(),
    _meta: z
      .object({
        quota: z
          .object({
            token_count: z
              .object({ input_tokens: z.number().optional(), output_tokens: z.number().optional() })
              .loose()
              .optional(),
          })
          .loose()
          .optional(),
      })
      .loose()
      .optional(),
  })
  .loose();
const updateSchema = z
  .object({
    sessionId: z.string(),
    update: z
      .object({
        sessionUpdate: z.string(),
        content: z.object({ type: z.string(), text: z.string().optional() }).loose().optional(),
      })
      .loose(),
  })
  .loose();

/** ACP is not what this `gemini` speaks (too old, or another program): use headless calls. */
export class AcpUnavailable extends Error {
  override readonly name = 'AcpUnavailable';
}

export class AcpAgent {
  readonly #connection: AcpConnection;
  readonly #ready: Promise<void>;
  /** Sessions opened on this child (it keeps every one: a child is retired after enough). */
  sessions = 0;
  inFlight = 0;

  constructor(options: {
    command: string;
    model: string;
    dir: CallDirectory;
    env: Readonly<Record<string, string | undefined>>;
    systemFile: string;
  }) {
    this.#connection = new AcpConnection({
      command: options.command,
      args: [...commonArgs(options.model, options.dir), '--acp'],
      cwd: options.dir.work,
      env: childEnv(options.env, options.systemFile),
    });
    this.#ready = this.#initialize();
    // A start-up failure is reported to each caller; never unhandled.
    this.#ready.catch(() => undefined);
  }

  get pid(): number | undefined {
    return this.#connection.pid;
  }

  /** Resolves once the agent answered `initialize`; rejects with {@link AcpUnavailable} or a stop. */
  get ready(): Promise<void> {
    return this.#ready;
  }

  async #initialize(): Promise<void> {
    try {
      await this.#connection.request('initialize', {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: 'maker', version: '1' },
      });
    } catch (error) {
      if (error instanceof AcpExit && error.exitCode === 41)
        throw new ConfigError(`${SIGN_IN}. (gemini exited with code 41: ${tail(error.stderr)})`);
      if (error instanceof AcpExit || (error instanceof AcpError && error.code === -32601))
        throw new AcpUnavailable(
          `gemini --acp ${error.message}: ${tail(error instanceof AcpExit ? error.stderr : '')}`,
        );
      throw error;
    }
  }

  /** Opens a session (which signs in): a refused sign-in is the sign-in message. */
  async openSession(cwd: string): Promise<string> {
    await this.#ready;
    try {
      const opened = newSessionSchema.parse(
        await this.#connection.request('session/new', { cwd, mcpServers: [] }),
      );
      this.sessions += 1;
      return opened.sessionId;
    } catch (error) {
      throw this.#failure(error, true);
    }
  }

  /** One prompt in its own session; `signal` cancels it (the agent is told `session/cancel`). */
  async prompt(
    cwd: string,
    text: string,
    signal: AbortSignal | undefined,
  ): Promise<GenerateResult> {
    const aborted = (): boolean => signal?.aborted === true;
    if (aborted()) throw new AbortedError(signal?.reason);
    this.inFlight += 1;
    try {
      const sessionId = await this.openSession(cwd);
      let answer = '';
      const stop = this.#connection.onNotification((method, params) => {
        if (method !== 'session/update') return;
        const update = updateSchema.safeParse(params);
        if (!update.success || update.data.sessionId !== sessionId) return;
        if (update.data.update.sessionUpdate === 'agent_message_chunk')
          answer += update.data.update.content?.text ?? '';
      });
      const onAbort = () => this.#connection.notify('session/cancel', { sessionId });
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const result = promptResultSchema.parse(
          await this.#connection.request('session/prompt', {
            sessionId,
            prompt: [{ type: 'text', text }],
          }),
        );
        if (result.stopReason === 'cancelled' || aborted()) throw new AbortedError(signal?.reason);
        const tokens = result._meta?.quota?.token_count;
        return {
          text: answer,
          finishReason: finishReason(result.stopReason),
          inputTokens: tokens?.input_tokens,
          outputTokens: tokens?.output_tokens,
        };
      } catch (error) {
        if (aborted()) throw new AbortedError(signal?.reason);
        throw this.#failure(error, false);
      } finally {
        signal?.removeEventListener('abort', onAbort);
        stop();
      }
    } finally {
      this.inFlight -= 1;
    }
  }

  #failure(error: unknown, opening: boolean): MakerError | Error {
    if (error instanceof AcpExit) return exitError(error.exitCode, tail(error.stderr));
    if (error instanceof AcpError) {
      if (opening && (error.code === -32000 || /auth/i.test(error.message)))
        return new ConfigError(`${SIGN_IN}. (Gemini CLI said: ${error.message})`);
      if (error.code === 429 || isDailyQuota(error.message)) return quotaStop(error.message);
      return new ApiCallError('gemini-cli', `Gemini CLI failed a call: ${error.message}`, {
        ...(error.code >= 400 && error.code < 600 ? { status: error.code } : {}),
      });
    }
    return error instanceof Error ? error : new Error(String(error));
  }

  close(): Promise<void> {
    return this.#connection.close();
  }
}

function finishReason(stop: string): GenerateResult['finishReason'] {
  switch (stop) {
    case 'end_turn':
      return 'stop';
    case 'max_tokens':
      return 'length';
    case 'refusal':
      return 'safety';
    default:
      return 'other';
  }
}

function tail(text: string): string {
  return text.trim().split('\n').slice(-5).join(' ').slice(0, 500);
}
