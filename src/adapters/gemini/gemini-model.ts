import type * as GenAIModule from '@google/genai';
import type {
  GenerateContentConfig,
  GoogleGenAI,
  ThinkingLevel as GenAIThinkingLevel,
} from '@google/genai';
import { DEFAULT_MODEL_WAITS, requestDeadlineMs, type ModelWaits } from '../../core/deadlines.js';
import { AbortedError, ApiCallError, ConfigError, redactSecrets } from '../../core/errors.js';
import { ModelTransportError, quotaError } from '../../core/model-errors.js';
import { DEFAULT_RETRY_MS, readQuotaAnswer, waitWords } from '../../core/rate-limits.js';
import type { ModelResponse } from '../../core/red-flags/index.js';
import { AUTOMATIC_ROOM, raisedThinking, thinkingRoom } from '../../core/sampling.js';
import type { GenerateRequest, GenerateResult, LanguageModel } from '../../ports/language-model.js';

export interface GeminiModelOptions {
  /** A Gemini model name, e.g. `gemini-2.5-flash`. */
  readonly model: string;
  readonly apiKey: string;
  /** Vertex AI instead of the Gemini API (application default credentials; `apiKey` unused). */
  readonly vertex?: { readonly project: string; readonly location: string } | undefined;
  /** Override the API origin (tests point it at a local fake). */
  readonly baseUrl?: string | undefined;
  /** How long a request may take (from its size) and stay silent (tests inject short ones). */
  readonly waits?: ModelWaits | undefined;
  readonly now?: () => Date;
}

/**
 * Room for a thinking model's hidden reasoning: Gemini counts it against `maxOutputTokens`, and
 * Gemini 2.5's automatic thinking takes up to 8,192 tokens. Without this room a 4,096-token cap on
 * a planner's answer is often spent before the answer starts (an empty answer, MAX_TOKENS). A
 * budget or level asked for leaves its own room (`core/sampling.ts`).
 */
export const AUTO_THINKING_TOKENS = AUTOMATIC_ROOM;

type GenAI = typeof GenAIModule;
let genai: Promise<GenAI> | undefined;
/** `@google/genai`, evaluated on first use: a process that makes no model call never pays for it. */
const loadGenAI = (): Promise<GenAI> => (genai ??= import('@google/genai'));

/**
 * {@link LanguageModel} over `@google/genai` (`models.generateContent`). Finish reasons are mapped
 * for red-flagging (`MAX_TOKENS` → `length`, a blocked prompt → `safety`); errors become
 * {@link ApiCallError} with the key redacted: a 429 is read (`core/rate-limits.ts`) as a per-minute
 * limit to wait out or a daily one that stops the run, and a request past its deadline, an answer
 * that went silent or a connection that failed are transport failures. It makes one attempt per
 * request: retries are {@link RetryingModel}'s, which says what it waits for.
 */
export class GeminiModel implements LanguageModel {
  readonly id: string;
  readonly #options: GeminiModelOptions;
  #client: Promise<{ client: GoogleGenAI; ApiError: GenAI['ApiError'] }> | undefined;
  readonly #apiKey: string;

  constructor(options: GeminiModelOptions) {
    if (options.vertex === undefined && options.apiKey.trim() === '')
      throw new ConfigError(
        'GEMINI_API_KEY is not set: export it (or pass --model sim for an offline run).',
      );
    this.id = options.model;
    this.#apiKey = options.apiKey;
    this.#options = options;
  }

  /** The client, made on first use. */
  #connect(): Promise<{ client: GoogleGenAI; ApiError: GenAI['ApiError'] }> {
    const options = this.#options;
    this.#client ??= loadGenAI().then(({ GoogleGenAI, ApiError }) => ({
      ApiError,
      client: new GoogleGenAI({
        ...(options.vertex === undefined
          ? { apiKey: options.apiKey }
          : { vertexai: true, project: options.vertex.project, location: options.vertex.location }),
        httpOptions: {
          ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
          fetch: watchedFetch((options.waits ?? DEFAULT_MODEL_WAITS).silenceMs),
        },
      }),
    }));
    return this.#client;
  }

  /**
   * One answer. When the thinking used the whole output cap (MAX_TOKENS and no text), the request
   * is sent once more with the thinking raised (`raisedThinking`: a larger budget, or more room,
   * from the model's table); only an empty answer then is returned as cut off. Both requests are
   * counted (`requests`) and billed.
   */
  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const first = await this.#generate(request, thinkingRoom(request));
    if (first.finishReason !== 'length' || first.text.trim() !== '') return first;
    const raised = raisedThinking(this.id, request);
    if (raised === undefined) return first;
    const { room, ...thinking } = raised;
    const second = await this.#generate({ ...request, ...thinking }, room);
    return {
      ...second,
      inputTokens: (first.inputTokens ?? 0) + (second.inputTokens ?? 0),
      // The empty first answer's output was all thinking: billed, but no part of the answer.
      thoughtTokens:
        (first.thoughtTokens ?? 0) + (first.outputTokens ?? 0) + (second.thoughtTokens ?? 0),
      requests: 2,
    };
  }

  async #generate(request: GenerateRequest, room: number): Promise<GenerateResult> {
    const config: GenerateContentConfig = {
      temperature: request.temperature,
      ...(request.system === undefined ? {} : { systemInstruction: request.system }),
      ...(request.maxOutputTokens === undefined
        ? {}
        : { maxOutputTokens: request.maxOutputTokens + room }),
      ...(request.thinkingBudget !== undefined
        ? { thinkingConfig: { thinkingBudget: request.thinkingBudget } }
        : request.thinkingLevel !== undefined
          ? {
              thinkingConfig: {
                thinkingLevel: request.thinkingLevel.toUpperCase() as GenAIThinkingLevel,
              },
            }
          : {}),
      ...(request.json === undefined
        ? {}
        : {
            responseMimeType: 'application/json',
            ...(request.json.schema === undefined
              ? {}
              : { responseJsonSchema: request.json.schema }),
          }),
    };
    const { client, ApiError } = await this.#connect();
    const waits = this.#options.waits ?? DEFAULT_MODEL_WAITS;
    const deadlineMs = requestDeadlineMs(
      {
        promptChars: (request.system ?? '').length + request.prompt.length,
        maxOutputTokens: request.maxOutputTokens,
        thinkingRoom: room,
      },
      waits,
    );
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new DeadlinePassed(deadlineMs)), deadlineMs);
    config.abortSignal =
      request.signal === undefined
        ? deadline.signal
        : AbortSignal.any([request.signal, deadline.signal]);
    try {
      const response = await client.models.generateContent({
        model: this.id,
        contents: request.prompt,
        config,
      });
      const candidate = response.candidates?.[0];
      const thoughts = response.usageMetadata?.thoughtsTokenCount;
      return {
        text: response.text ?? '',
        // A blocked prompt has no candidate, only the block's reason.
        finishReason:
          candidate === undefined && response.promptFeedback?.blockReason !== undefined
            ? 'safety'
            : mapFinishReason(candidate?.finishReason),
        outputTokens: response.usageMetadata?.candidatesTokenCount,
        inputTokens: response.usageMetadata?.promptTokenCount,
        ...(thoughts === undefined ? {} : { thoughtTokens: thoughts }),
      };
    } catch (error) {
      if (request.signal?.aborted) throw new AbortedError(request.signal.reason);
      if (deadline.signal.aborted)
        throw new ModelTransportError(
          this.#service,
          `${this.#what} failed: no complete answer within ${waitWords(deadlineMs)} (the deadline for a request this size; MAKER_MODEL_FIRST_BYTE_S allows more).`,
        );
      throw this.#toApiCallError(error, ApiError);
    } finally {
      clearTimeout(timer);
    }
  }

  get #service(): string {
    return this.#options.vertex === undefined ? 'gemini' : 'vertex';
  }

  get #what(): string {
    return this.#options.vertex === undefined ? 'A Gemini API call' : 'A Vertex AI call';
  }

  #toApiCallError(error: unknown, ApiError: GenAI['ApiError']): ApiCallError {
    const silent = silenceOf(error);
    if (silent !== undefined)
      return new ModelTransportError(
        this.#service,
        `${this.#what} failed: the answer stopped: nothing for ${waitWords(silent.ms)} (MAKER_MODEL_SILENCE_S allows more).`,
      );
    const raw = error instanceof Error ? error.message : String(error);
    const message = redactSecrets(raw, [this.#apiKey]);
    if (error instanceof ApiError && error.status === 429) {
      const answer = readQuotaAnswer({ status: 429, body: message }) ?? {
        kind: 'per-minute' as const,
        retryMs: DEFAULT_RETRY_MS,
        said: message.slice(0, 300),
      };
      return quotaError(
        this.#service,
        answer,
        this.#options.now?.() ?? new Date(),
        this.#options.vertex === undefined
          ? 'Or go on sooner with another access: --model-access vertex or gemini-cli (your own Gemini CLI sign-in).'
          : 'Or go on sooner with another access: --model-access key or gemini-cli.',
      );
    }
    if (error instanceof ApiError) {
      const hint =
        error.status === 401 || error.status === 403
          ? ' Check that GEMINI_API_KEY is a valid Gemini API key.'
          : error.status === 404
            ? ` Check the model name "${this.id}".`
            : '';
      return new ApiCallError('gemini', `Gemini API error ${error.status}: ${message}${hint}`, {
        status: error.status,
      });
    }
    // A failed fetch says only "fetch failed": what failed underneath is what a person can act on.
    const cause = redactSecrets(causeText(error), [this.#apiKey]);
    const unreachable =
      cause === ''
        ? ''
        : ` (${cause}). Check the network connection to ${this.#options.baseUrl ?? 'https://generativelanguage.googleapis.com'} (GOOGLE_GEMINI_BASE_URL sets another address)`;
    return new ModelTransportError(
      this.#service,
      `${this.#what} failed: ${message}${unreachable}.`,
    );
  }
}

/** The request's deadline passed (the abort reason of its own signal). */
class DeadlinePassed extends Error {
  constructor(ms: number) {
    super(`no complete answer within ${waitWords(ms)}`);
    this.name = 'DeadlinePassed';
  }
}

/** The answer stopped arriving mid-body: nothing for `ms`. */
class AnswerWentSilent extends Error {
  readonly ms: number;
  constructor(ms: number) {
    super(`the answer stopped: nothing for ${waitWords(ms)}`);
    this.name = 'AnswerWentSilent';
    this.ms = ms;
  }
}

function silenceOf(error: unknown): AnswerWentSilent | undefined {
  for (let e: unknown = error; e instanceof Error; e = e.cause)
    if (e instanceof AnswerWentSilent) return e;
  return undefined;
}

/**
 * `fetch` with a silence watchdog on the answer's body: once the answer began, no byte for
 * `silenceMs` cancels it (an {@link AnswerWentSilent} failure). A network failure keeps what
 * failed underneath ("fetch failed" says nothing a person can act on). An abort stays an abort.
 */
function watchedFetch(silenceMs: number): typeof fetch {
  return async (input, init) => {
    let response: Response;
    try {
      response = await fetch(input, init);
    } catch (error) {
      if (error instanceof TypeError && error.message === 'fetch failed')
        throw new NetworkFailure(error);
      throw error;
    }
    const body = response.body;
    if (body === null) return response;
    const reader: ReadableStreamDefaultReader<Uint8Array> = body.getReader();
    let timer: NodeJS.Timeout | undefined;
    const watched = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const silent = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new AnswerWentSilent(silenceMs)), silenceMs);
        });
        try {
          const chunk = await Promise.race([reader.read(), silent]);
          if (chunk.done) controller.close();
          else controller.enqueue(chunk.value);
        } catch (error) {
          await reader.cancel(error).catch(() => undefined);
          controller.error(error);
        } finally {
          clearTimeout(timer);
        }
      },
      cancel(reason) {
        clearTimeout(timer);
        return reader.cancel(reason);
      },
    });
    return new Response(watched, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** A request that got no answer: kept as the error's cause, with the same message. */
class NetworkFailure extends Error {
  constructor(failure: TypeError) {
    super(failure.message, { cause: failure.cause });
    this.name = 'NetworkFailure';
  }
}

/** What a failed fetch says underneath "fetch failed": `connect ECONNREFUSED 127.0.0.1:9`. */
function causeText(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  return cause instanceof Error ? cause.message : '';
}

function mapFinishReason(reason: string | undefined): ModelResponse['finishReason'] {
  switch (reason) {
    case undefined:
    case 'FINISH_REASON_UNSPECIFIED':
      return undefined;
    case 'STOP':
      return 'stop';
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
      return 'safety';
    default:
      return 'other';
  }
}
