import { DEFAULT_MODEL_WAITS, requestDeadlineMs, type ModelWaits } from '../../core/deadlines.js';
import { AbortedError } from '../../core/errors.js';
import { Semaphore } from '../../core/semaphore.js';
import { thinkingRoom } from '../../core/sampling.js';
import type { GenerateRequest, GenerateResult, LanguageModel } from '../../ports/language-model.js';
import { AcpAgent, AcpUnavailable } from './acp-agent.js';
import { headlessCall } from './headless.js';
import type { GeminiCliMode } from './probe.js';
import { BASE_SYSTEM_PROMPT, CallDirectory } from './setup.js';

export { probeGeminiCli, type GeminiCliMode, type GeminiCliProbe } from './probe.js';

export interface GeminiCliModelOptions {
  /** The `gemini` executable (a path found on the PATH). */
  readonly command: string;
  /** A concrete model (`-m`), so Gemini CLI's router makes no extra call. */
  readonly model: string;
  /** The environment `gemini` runs in (the person's: its own sign-in lives under HOME). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Calls at once (default 4). */
  readonly concurrency?: number;
  /** `auto` (default): ACP, falling back to headless calls when this `gemini` has no ACP mode. */
  readonly mode?: GeminiCliMode | 'auto';
  /** Sessions one ACP child opens before a fresh child takes over (it keeps every session). */
  readonly sessionsPerChild?: number;
  /** How long to wait on start-up, on each answer, and on silence (tests inject short ones). */
  readonly waits?: ModelWaits | undefined;
  /** Told once, in a sentence, when calls fall back to one process each (no ACP mode). */
  readonly onNotice?: ((text: string) => void) | undefined;
}

/**
 * {@link LanguageModel} over the person's own Gemini CLI, signed in as they set it up: MAKER never
 * reads its credentials. Each call is a plain model call: no extensions, no MCP servers, every tool
 * denied, MAKER's system prompt, a private Gemini CLI home and an empty private working directory,
 * and every wait has a deadline (`core/deadlines.ts`). Gemini CLI takes no sampling
 * settings on its command line, so `temperature`, `maxOutputTokens` and the JSON schema are
 * requests in words (the red flags judge the answers as for any model).
 */
export class GeminiCliModel implements LanguageModel {
  readonly id: string;
  readonly #options: GeminiCliModelOptions;
  /** At most `concurrency` calls at once, in arrival order; a waiter whose signal aborts leaves. */
  readonly #limit: Semaphore;
  #dir: Promise<CallDirectory> | undefined;
  #mode: GeminiCliMode | 'auto';
  #agent: AcpAgent | undefined;
  readonly #retired = new Set<AcpAgent>();
  /** Aborts every call in flight when the model closes. */
  readonly #closing = new AbortController();
  readonly #calls = new Set<Promise<GenerateResult>>();
  #closed = false;

  constructor(options: GeminiCliModelOptions) {
    this.id = options.model;
    this.#options = options;
    this.#mode = options.mode ?? 'auto';
    this.#limit = new Semaphore(options.concurrency ?? 4);
  }

  /** The mode calls use now (`auto` until the first call settled it). */
  get mode(): GeminiCliMode | 'auto' {
    return this.#mode;
  }

  generate(request: GenerateRequest): Promise<GenerateResult> {
    if (this.#closed) return Promise.reject(new AbortedError(new Error('The model was closed.')));
    const signal =
      request.signal === undefined
        ? this.#closing.signal
        : AbortSignal.any([request.signal, this.#closing.signal]);
    const call = this.#limit.run(() => this.#call({ ...request, signal }), signal);
    this.#calls.add(call);
    void call.catch(() => undefined).finally(() => this.#calls.delete(call));
    return call;
  }

  get #waits(): ModelWaits {
    return this.#options.waits ?? DEFAULT_MODEL_WAITS;
  }

  async #call(request: GenerateRequest): Promise<GenerateResult> {
    if (request.signal?.aborted === true) throw new AbortedError(request.signal.reason);
    const dir = await (this.#dir ??= CallDirectory.create(this.#options.env));
    const asked = jsonNote(request);
    const deadlineMs = requestDeadlineMs(
      {
        promptChars: (request.system ?? '').length + request.prompt.length + asked.length,
        maxOutputTokens: request.maxOutputTokens,
        thinkingRoom: thinkingRoom(request),
      },
      this.#waits,
    );
    if (this.#mode !== 'headless') {
      try {
        const agent = this.#currentAgent(dir, await dir.systemFile(BASE_SYSTEM_PROMPT));
        await agent.ready;
        const text = [
          request.system === undefined
            ? ''
            : `Instructions for this request:\n${request.system}\n\n`,
          request.prompt,
          asked,
        ].join('');
        const result = await agent.prompt(dir.work, text, request.signal, deadlineMs);
        this.#mode = 'acp';
        this.#retireIfIdle(agent);
        return result;
      } catch (error) {
        if (!(error instanceof AcpUnavailable) || this.#mode === 'acp') throw error;
        this.#mode = 'headless';
        this.#agent = undefined;
        this.#options.onNotice?.(
          `Gemini CLI (${this.#options.command}) has no ACP mode (${error.message.slice(0, 200)}), so MAKER starts it once per call: slower (a few seconds each). Upgrading it (npm install -g @google/gemini-cli@latest) makes calls faster.`,
        );
      }
    }
    return headlessCall({
      command: this.#options.command,
      model: this.#options.model,
      dir,
      env: this.#options.env,
      system:
        request.system === undefined
          ? BASE_SYSTEM_PROMPT
          : `${BASE_SYSTEM_PROMPT}\n\n${request.system}`,
      text: `${request.prompt}${asked}\n\n`,
      signal: request.signal,
      waits: this.#waits,
      deadlineMs,
    });
  }

  /**
   * The child new calls go to: a fresh one once the current one has opened enough sessions, or is
   * suspect (a prompt of it went unanswered and may take the child down with it).
   */
  #currentAgent(dir: CallDirectory, systemFile: string): AcpAgent {
    const current = this.#agent;
    if (
      current !== undefined &&
      current.alive &&
      !current.suspect &&
      current.sessions < (this.#options.sessionsPerChild ?? 200)
    )
      return current;
    if (current !== undefined) {
      this.#retired.add(current);
      this.#retireIfIdle(current);
    }
    const agent = new AcpAgent({
      command: this.#options.command,
      model: this.#options.model,
      dir,
      env: this.#options.env,
      systemFile,
      waits: this.#waits,
    });
    this.#agent = agent;
    return agent;
  }

  #retireIfIdle(agent: AcpAgent): void {
    if (this.#retired.has(agent) && agent.inFlight === 0) {
      this.#retired.delete(agent);
      void agent.close();
    }
  }

  /** The children's pids (tests). */
  get pids(): number[] {
    return [this.#agent, ...this.#retired].flatMap((a) => (a?.pid === undefined ? [] : [a.pid]));
  }

  /**
   * Ends every child at once (each with its whole process group: calls in flight fail as aborted)
   * and removes the private directory.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort(new Error('The model was closed.'));
    const agents = [this.#agent, ...this.#retired].filter((a): a is AcpAgent => a !== undefined);
    this.#agent = undefined;
    this.#retired.clear();
    for (const agent of agents) agent.kill();
    await Promise.all(agents.map((a) => a.close()));
    await Promise.allSettled([...this.#calls]);
    if (this.#dir !== undefined) await (await this.#dir).remove();
  }
}

/** What a JSON request asks, in words: Gemini CLI has no option for it. */
function jsonNote(request: GenerateRequest): string {
  if (request.json === undefined) return '';
  const schema =
    request.json.schema === undefined
      ? ''
      : ` matching this JSON schema: ${JSON.stringify(request.json.schema)}`;
  return `\n\nAnswer with only a JSON value${schema}. No prose, no code fences.`;
}
