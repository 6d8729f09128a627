import { AbortedError } from '../../core/errors.js';
import type { GenerateRequest, GenerateResult, LanguageModel } from '../../ports/language-model.js';
import { AcpAgent, AcpUnavailable } from './acp-agent.js';
import { headlessCall } from './headless.js';
import { BASE_SYSTEM_PROMPT, CallDirectory } from './setup.js';

/** How calls reach `gemini`: one long-lived `--acp` child, or one `-p` process per call. */
export type GeminiCliMode = 'acp' | 'headless';

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
}

/**
 * {@link LanguageModel} over the person's own Gemini CLI, signed in as they set it up: MAKER never
 * reads its credentials. Each call is a plain model call: no extensions, no MCP servers, every tool
 * denied, MAKER's system prompt, an empty private working directory. Gemini CLI takes no sampling
 * settings on its command line, so `temperature`, `maxOutputTokens` and the JSON schema are
 * requests in words (the red flags judge the answers as for any model).
 */
export class GeminiCliModel implements LanguageModel {
  readonly id: string;
  readonly #options: GeminiCliModelOptions;
  readonly #limit: Limiter;
  #dir: Promise<CallDirectory> | undefined;
  #mode: GeminiCliMode | 'auto';
  #agent: AcpAgent | undefined;
  readonly #retired = new Set<AcpAgent>();
  #closed = false;

  constructor(options: GeminiCliModelOptions) {
    this.id = options.model;
    this.#options = options;
    this.#mode = options.mode ?? 'auto';
    this.#limit = new Limiter(options.concurrency ?? 4);
  }

  /** The mode calls use now (`auto` until the first call settled it). */
  get mode(): GeminiCliMode | 'auto' {
    return this.#mode;
  }

  generate(request: GenerateRequest): Promise<GenerateResult> {
    return this.#limit.run(request.signal, () => this.#call(request));
  }

  async #call(request: GenerateRequest): Promise<GenerateResult> {
    const dir = await (this.#dir ??= CallDirectory.create());
    const asked = jsonNote(request);
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
        const result = await agent.prompt(dir.work, text, request.signal);
        this.#mode = 'acp';
        this.#retireIfIdle(agent);
        return result;
      } catch (error) {
        if (!(error instanceof AcpUnavailable) || this.#mode === 'acp') throw error;
        this.#mode = 'headless';
        this.#agent = undefined;
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
    });
  }

  /** The child new calls go to: a fresh one once the current one has opened enough sessions. */
  #currentAgent(dir: CallDirectory, systemFile: string): AcpAgent {
    const current = this.#agent;
    if (current !== undefined && current.sessions < (this.#options.sessionsPerChild ?? 200))
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

  /** Ends every child and removes the private directory. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const agents = [this.#agent, ...this.#retired].filter((a): a is AcpAgent => a !== undefined);
    this.#agent = undefined;
    this.#retired.clear();
    await Promise.all(agents.map((a) => a.close()));
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

/** At most `limit` calls at once, in arrival order; a waiter whose signal aborts leaves the queue. */
class Limiter {
  readonly #limit: number;
  #active = 0;
  readonly #queue: (() => void)[] = [];

  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  async run<T>(signal: AbortSignal | undefined, task: () => Promise<T>): Promise<T> {
    if (signal?.aborted === true) throw new AbortedError(signal.reason);
    if (this.#active >= this.#limit)
      await new Promise<void>((resolve, reject) => {
        const grant = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          const at = this.#queue.indexOf(grant);
          if (at >= 0) this.#queue.splice(at, 1);
          reject(new AbortedError(signal?.reason));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        this.#queue.push(grant);
      });
    else this.#active += 1;
    try {
      return await task();
    } finally {
      const next = this.#queue.shift();
      if (next !== undefined) next();
      else this.#active -= 1;
    }
  }
}

/**
 * Whether the person's `gemini` can take MAKER's calls, before anything is created: starts it in
 * ACP mode and opens a session, which signs in without a model request (no quota spent). Throws the
 * sign-in message when it is not signed in; `headless` when this `gemini` has no ACP mode (its
 * sign-in is then known at the first call).
 */
export async function probeGeminiCli(
  options: Pick<GeminiCliModelOptions, 'command' | 'model' | 'env'>,
): Promise<GeminiCliMode> {
  const dir = await CallDirectory.create();
  const agent = new AcpAgent({
    ...options,
    dir,
    systemFile: await dir.systemFile(BASE_SYSTEM_PROMPT),
  });
  try {
    await agent.openSession(dir.work);
    return 'acp';
  } catch (error) {
    if (error instanceof AcpUnavailable) return 'headless';
    throw error;
  } finally {
    await agent.close();
    await dir.remove();
  }
}
