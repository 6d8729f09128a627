import type { ModelResponse } from '../core/red-flags/index.js';
import type { ThinkingLevel } from '../core/sampling.js';

/** One text generation request. No SDK type crosses this port. */
export interface GenerateRequest {
  readonly system?: string;
  readonly prompt: string;
  readonly temperature: number;
  /**
   * The most tokens the answer itself may have (its red flags judge it against this). A thinking
   * model's hidden reasoning is not part of it: the adapter leaves that room on top.
   */
  readonly maxOutputTokens?: number;
  /** Thinking models: tokens of hidden reasoning allowed (0 turns thinking off where the model allows). */
  readonly thinkingBudget?: number;
  /** Gemini 3 models: how much to think, instead of a budget. */
  readonly thinkingLevel?: ThinkingLevel;
  /** Ask for JSON output (and, when given, constrain it to this JSON schema). */
  readonly json?: { readonly schema?: Readonly<Record<string, unknown>> };
  readonly signal?: AbortSignal | undefined;
  /**
   * Which draw this is (e.g. `n-0:worker:1001`): identical requests for different draws are told
   * apart by it when exchanges are recorded and replayed. Never sent to the model.
   */
  readonly draw?: string;
}

/** What a generation returns: the text and what red-flagging needs to judge it, plus usage. */
export interface GenerateResult extends ModelResponse {
  readonly inputTokens?: number | undefined;
  /**
   * Hidden reasoning tokens of a thinking model: billed as output, but not part of the answer
   * (`outputTokens`, which the length red flag judges).
   */
  readonly thoughtTokens?: number | undefined;
  /**
   * Requests the model received for this result (default 1): an adapter that retried once with a
   * larger thinking budget made two, each counted and billed.
   */
  readonly requests?: number | undefined;
}

/** Every token a call is billed for: prompt, answer and hidden reasoning. */
export function billedTokens(result: Omit<GenerateResult, 'text'>): number {
  return (result.inputTokens ?? 0) + (result.outputTokens ?? 0) + (result.thoughtTokens ?? 0);
}

/**
 * A text model the engine can sample from. Implementations map provider errors to
 * `ApiCallError` (never leaking a key) and honour `signal`.
 */
export interface LanguageModel {
  /** A stable id such as `gemini-2.5-flash` or `sim`, for reports and cost accounting. */
  readonly id: string;
  generate(request: GenerateRequest): Promise<GenerateResult>;
}
