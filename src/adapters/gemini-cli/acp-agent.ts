import { z } from 'zod';
import type { ModelWaits } from '../../core/deadlines.js';
import { AbortedError, ApiCallError, type MakerError } from '../../core/errors.js';
import { ModelTransportError } from '../../core/model-errors.js';
import { waitWords } from '../../core/rate-limits.js';
import type { GenerateResult } from '../../ports/language-model.js';
import { AcpConnection, AcpError, AcpExit } from './acp-client.js';
import {
  demandsLogin,
  exitError,
  saidError,
  signInError,
  startupError,
  tail,
  tooOldError,
} from './said.js';
import { childEnv, commonArgs, type CallDirectory } from './setup.js';
import { takeSessionUsage } from './usage.js';

/**
 * One long-lived `gemini --acp` child and the calls made through it, each in its own session: a new
 * prompt in a session aborts that session's previous one, so concurrent calls never share one, and
 * a fresh session per call keeps calls independent (no earlier answer in its history). Every wait
 * on it has a deadline: start-up and sign-in, each answer (from its size), and its silence.
 */

/** The ACP version MAKER speaks. */
const PROTOCOL_VERSION = 1;

/** How long a cancelled prompt may take to settle before its child is ended. */
const CANCEL_GRACE_MS = 2000;

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

export interface AcpAgentOptions {
  readonly command: string;
  readonly model: string;
  readonly dir: CallDirectory;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly systemFile: string;
  readonly waits: ModelWaits;
  readonly now?: () => Date;
}

export class AcpAgent {
  readonly #connection: AcpConnection;
  readonly #ready: Promise<void>;
  readonly #options: AcpAgentOptions;
  /** Set when the child asked for a login: every wait on it ends with this. */
  #loginDemand: string | undefined;
  /**
   * Why MAKER ended this child under its calls: a prompt's watchdog tripped and the prompt did not
   * settle when cancelled. Other calls in flight on it fail naming this, not a bare signal.
   */
  #endedBy: string | undefined;
  /** Prompts cancelled by their watchdog that have not settled yet (the child may be ended). */
  #unsettled = 0;
  /** Sessions opened on this child (it keeps every one: a child is retired after enough). */
  sessions = 0;
  inFlight = 0;

  constructor(options: AcpAgentOptions) {
    this.#options = options;
    this.#connection = new AcpConnection({
      command: options.command,
      args: [...commonArgs(options.model, options.dir), '--acp'],
      cwd: options.dir.work,
      env: childEnv(options.env, options.dir, options.systemFile),
    });
    // A login prompt can never be answered here: it ends the child at once.
    let heard = '';
    const stop = this.#connection.onOutput((text) => {
      heard = (heard + text).slice(-2000);
      if (demandsLogin(heard)) {
        this.#loginDemand = heard;
        stop();
        this.#connection.kill();
      }
    });
    this.#ready = this.#startUp(
      this.#connection.request('initialize', {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: 'maker', version: '1' },
      }),
    ).then(
      () => undefined,
      (error: unknown) => {
        throw this.#initFailure(error);
      },
    );
    // A start-up failure is reported to each caller; never unhandled.
    this.#ready.catch(() => undefined);
  }

  get pid(): number | undefined {
    return this.#connection.pid;
  }

  /** Whether the child still runs (one that ended takes no more calls). */
  get alive(): boolean {
    return !this.#connection.ended;
  }

  /**
   * Whether new calls should go to another child: a prompt of this one went unanswered and its
   * cancel has not settled, so it may be ended within the grace, with every call on it.
   */
  get suspect(): boolean {
    return this.#unsettled > 0 || this.#endedBy !== undefined;
  }

  /** Resolves once the agent answered `initialize`; rejects with {@link AcpUnavailable} or a stop. */
  get ready(): Promise<void> {
    return this.#ready;
  }

  #now(): Date {
    return this.#options.now?.() ?? new Date();
  }

  /** `work` within the start-up deadline; past it, the child is ended. */
  #startUp<T>(work: Promise<T>): Promise<T> {
    const ms = this.#options.waits.startupMs;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#connection.kill();
        reject(startupError(ms));
      }, ms);
      work.then(resolve, reject).finally(() => clearTimeout(timer));
    });
  }

  #initFailure(error: unknown): Error {
    if (this.#loginDemand !== undefined) return signInError(this.#loginDemand);
    if (error instanceof AcpExit) {
      if (error.exitCode === 41 || demandsLogin(error.stderr)) return signInError(error.stderr);
      const unknown = /Unknown arguments?: ([^\n]+)/.exec(error.stderr)?.[1] ?? '';
      if (unknown !== '' && !/\bacp\b/.test(unknown))
        return tooOldError(this.#options.command, unknown);
      if (error.exitCode === 127)
        return exitError(this.#options.command, 127, error.stderr, this.#now());
      return new AcpUnavailable(`gemini --acp ${error.message}: ${tail(error.stderr)}`);
    }
    if (error instanceof AcpError && error.code === -32601)
      return new AcpUnavailable(`gemini --acp does not know initialize: ${error.message}`);
    return error instanceof Error ? error : new Error(String(error));
  }

  /** Opens a session (which signs in): a refused sign-in is the sign-in message. */
  async openSession(cwd: string): Promise<string> {
    await this.#ready;
    try {
      const opened = newSessionSchema.parse(
        await this.#startUp(this.#connection.request('session/new', { cwd, mcpServers: [] })),
      );
      this.sessions += 1;
      return opened.sessionId;
    } catch (error) {
      throw this.#failure(error, true);
    }
  }

  /**
   * One prompt in its own session; `signal` cancels it (the agent is told `session/cancel`). Past
   * `deadlineMs`, or silent for the silence limit (from the request on: thinking streams too), it
   * is cancelled and fails as a transport failure; a child that does not settle a cancelled prompt
   * is ended.
   */
  async prompt(
    cwd: string,
    text: string,
    signal: AbortSignal | undefined,
    deadlineMs: number,
  ): Promise<GenerateResult> {
    const aborted = (): boolean => signal?.aborted === true;
    if (aborted()) throw new AbortedError(signal?.reason);
    this.inFlight += 1;
    try {
      const sessionId = await this.openSession(cwd);
      let answer = '';
      let heardAt: number | undefined;
      const stop = this.#connection.onNotification((method, params) => {
        if (method !== 'session/update') return;
        const update = updateSchema.safeParse(params);
        if (!update.success || update.data.sessionId !== sessionId) return;
        heardAt = Date.now();
        if (update.data.update.sessionUpdate === 'agent_message_chunk')
          answer += update.data.update.content?.text ?? '';
      });
      const onAbort = () => this.#connection.notify('session/cancel', { sessionId });
      signal?.addEventListener('abort', onAbort, { once: true });
      const request = this.#connection.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text }],
      });
      // Settled after the watchdog tripped (its answer is no longer awaited): never unhandled.
      request.catch(() => undefined);
      const watch = this.#watch(sessionId, deadlineMs, () => heardAt, request);
      try {
        const result = promptResultSchema.parse(await Promise.race([request, watch.tripped]));
        if (result.stopReason === 'cancelled' || aborted()) throw new AbortedError(signal?.reason);
        const tokens = result._meta?.quota?.token_count;
        const usage = await takeSessionUsage(this.#options.dir.home, sessionId).catch(
          () => undefined,
        );
        return {
          text: answer,
          finishReason: finishReason(result.stopReason),
          inputTokens: usage?.inputTokens ?? tokens?.input_tokens,
          outputTokens: usage?.outputTokens ?? tokens?.output_tokens,
          ...(usage === undefined ? {} : { thoughtTokens: usage.thoughtTokens }),
        };
      } catch (error) {
        if (aborted()) throw new AbortedError(signal?.reason);
        throw this.#failure(error, false);
      } finally {
        watch.stop();
        signal?.removeEventListener('abort', onAbort);
        stop();
      }
    } finally {
      this.inFlight -= 1;
    }
  }

  /**
   * The prompt's deadline and silence watchdog: `tripped` rejects with the transport failure when
   * either runs out, after telling the agent to cancel the prompt; a `request` that has not settled
   * within the grace after that ends the child (with every call on it, which then say why).
   */
  #watch(
    sessionId: string,
    deadlineMs: number,
    heardAt: () => number | undefined,
    request: Promise<unknown>,
  ): { tripped: Promise<never>; stop: () => void } {
    const { silenceMs } = this.#options.waits;
    const start = Date.now();
    let timer: NodeJS.Timeout | undefined;
    let grace: NodeJS.Timeout | undefined;
    const tripped = new Promise<never>((_, reject) => {
      const check = () => {
        const now = Date.now();
        const last = heardAt();
        // Silence counts from the request on: Gemini CLI streams the model's thinking as it
        // thinks (`agent_thought_chunk`), so a model at work is heard within seconds.
        const why =
          now - start >= deadlineMs
            ? `no complete answer within ${waitWords(deadlineMs)} (the deadline for a request this size)`
            : now - (last ?? start) >= silenceMs
              ? last === undefined
                ? `the model said nothing for ${waitWords(silenceMs)}`
                : `the answer stopped: nothing for ${waitWords(silenceMs)}`
              : undefined;
        if (why === undefined) {
          timer = setTimeout(check, Math.min(1000, Math.max(50, silenceMs / 4)));
          return;
        }
        this.#connection.notify('session/cancel', { sessionId });
        grace = setTimeout(() => {
          this.#endedBy ??= why;
          this.#connection.kill();
        }, CANCEL_GRACE_MS);
        grace.unref();
        this.#unsettled += 1;
        const settled = () => {
          clearTimeout(grace);
          this.#unsettled -= 1;
        };
        request.then(settled, settled);
        reject(new ModelTransportError('gemini-cli', `Gemini CLI's model call failed: ${why}.`));
      };
      timer = setTimeout(check, Math.min(1000, Math.max(50, silenceMs / 4)));
    });
    tripped.catch(() => undefined);
    return {
      tripped,
      stop: () => {
        clearTimeout(timer);
      },
    };
  }

  #failure(error: unknown, opening: boolean): MakerError | Error {
    if (this.#loginDemand !== undefined) return signInError(this.#loginDemand);
    if (error instanceof ModelTransportError || error instanceof ApiCallError) return error;
    if (error instanceof AcpExit) {
      // Ended under a call: by MAKER, for another call that went unanswered, else a failure of the
      // process; either way retried on a new child.
      if (error.exitCode === null)
        return new ModelTransportError(
          'gemini-cli',
          this.#endedBy === undefined
            ? `Gemini CLI ended mid-call (${error.message}).`
            : `Gemini CLI was ended mid-call by MAKER: another call on it went unanswered (${this.#endedBy}) and did not stop when cancelled.`,
        );
      return exitError(this.#options.command, error.exitCode, error.stderr, this.#now());
    }
    if (error instanceof AcpError) {
      if (opening && (error.code === -32000 || /auth/i.test(error.message)))
        return signInError(error.message);
      // A quota, a sign-in, else a failure (a server error's status makes it worth another try).
      return saidError(error.message, error.code, this.#now());
    }
    return error instanceof Error ? error : new Error(String(error));
  }

  /** Ends the child: its stdin first (it ends on its own), then the whole group. */
  close(): Promise<void> {
    return this.#connection.close();
  }

  /** Ends the child and its group now. */
  kill(): void {
    this.#connection.kill();
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
