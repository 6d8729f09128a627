import type * as GenAIModule from '@google/genai';
import type {
  GenerateContentConfig,
  GoogleGenAI,
  ThinkingLevel as GenAIThinkingLevel,
} from '@google/genai';
import { AbortedError, ApiCallError, ConfigError, redactSecrets } from '../../core/errors.js';
import { isDailyQuotaText } from '../../core/quota.js';
import type { ModelResponse } from '../../core/red-flags.js';
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
  /**
   * Attempts per call including the first: 429/408/5xx and a connection that failed or was cut
   * (no answer) are retried with backoff by the SDK.
   */
  readonly attempts?: number;
  /** First retry delay in seconds (default 1). */
  readonly initialRetryDelaySeconds?: number;
  /** Per-request timeout in milliseconds. */
  readonly timeoutMs?: number;
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
 * {@link ApiCallError} with the key redacted.
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
          ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
          fetch: retryableFetch,
          retryOptions: {
            attempts: options.attempts ?? 5,
            initialDelay: options.initialRetryDelaySeconds ?? 1,
            maxDelay: 60,
          },
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
      ...(request.signal === undefined ? {} : { abortSignal: request.signal }),
    };
    const { client, ApiError } = await this.#connect();
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
      throw this.#toApiCallError(error, ApiError);
    }
  }

  #toApiCallError(error: unknown, ApiError: GenAI['ApiError']): ApiCallError {
    if (error instanceof DailyQuotaSpent)
      return new ApiCallError(
        'gemini',
        `Gemini's daily request quota is spent (${redactSecrets(error.message, [this.#apiKey])}). A free key allows 250 requests a day: run \`maker resume\` once it frees up (within 24 hours), or use another access (--model-access).`,
        { status: 429, isRetryable: false },
      );
    const raw = error instanceof Error ? error.message : String(error);
    const message = redactSecrets(raw, [this.#apiKey]);
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
    return new ApiCallError('gemini', `Gemini API call failed: ${message}${unreachable}.`, {
      isRetryable: true,
    });
  }
}

/**
 * `fetch`, whose network failures (refused, reset, cut off, a name that did not resolve) the SDK's
 * retry retries: it treats every `TypeError` but a browser's as a bug in the call and gives up at
 * once, and Node's says only "fetch failed". A blip of the network then costs a retry with backoff,
 * not the run. An abort stays an abort.
 */
const retryableFetch: typeof fetch = async (input, init) => {
  let response: Response;
  try {
    response = await fetch(input, init);
  } catch (error) {
    if (error instanceof TypeError && error.message === 'fetch failed')
      throw new NetworkFailure(error);
    throw error;
  }
  // A spent daily quota frees up only the next day: not retried (the SDK's retry gives up at once
  // on a TypeError that is not a network failure).
  if (response.status === 429) {
    const body = await response
      .clone()
      .text()
      .catch(() => '');
    if (isDailyQuotaText(body)) throw new DailyQuotaSpent(body);
  }
  return response;
};

/** Gemini answered 429 for a daily quota: the run stops at once, resumable the next day. */
class DailyQuotaSpent extends TypeError {
  constructor(body: string) {
    super(`429 ${body.replace(/\s+/g, ' ').slice(0, 300)}`);
    this.name = 'DailyQuotaSpent';
  }
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
