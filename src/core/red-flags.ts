import type { ZodType } from 'zod';
import type { RedFlag, Sample } from './voting/types.js';

/** What a language model returned for one draw, as far as red-flagging needs it. */
export interface ModelResponse {
  readonly text: string;
  /** Normalised: `stop`, `length` (output cap hit), `safety`, `other`, or undefined when unknown. */
  readonly finishReason?: 'stop' | 'length' | 'safety' | 'other' | undefined;
  readonly outputTokens?: number | undefined;
}

/** A rule that inspects a raw response and returns a flag, or undefined when it has nothing to say. */
export type RedFlagRule<R> = (response: R) => RedFlag | undefined;

/** Turns a raw response into a value, or a flag explaining why it cannot be one. Never repairs. */
export type ResponseParser<R, T> = (
  response: R,
) => { readonly ok: true; readonly value: T } | { readonly ok: false; readonly flag: RedFlag };

/**
 * Composes rules and a parser into the red-flagging step of a sampler: every rule runs (flags are
 * collected, not stopped at the first), then the parser; any flag discards the sample.
 */
export function redFlagger<R, T>(
  parse: ResponseParser<R, T>,
  rules: readonly RedFlagRule<R>[] = [],
): (response: R) => Sample<T> {
  return (response) => {
    let flags: RedFlag[] | undefined;
    for (const rule of rules) {
      const flag = rule(response);
      if (flag !== undefined) (flags ??= []).push(flag);
    }
    const parsed = parse(response);
    if (!parsed.ok) return { ok: false, flags: [...(flags ?? []), parsed.flag] };
    return flags === undefined ? parsed : { ok: false, flags };
  };
}

/**
 * The paper's length flag: a response that hit the output cap (`finishReason: 'length'`) is
 * truncated, and one longer than `maxTokens` is over-long; both signal confusion.
 */
export function tokenCapRule(maxTokens: number): RedFlagRule<ModelResponse> {
  return (response) => {
    if (response.finishReason === 'length')
      return { rule: 'truncated', message: 'The response stopped at the output-token cap.' };
    if (response.outputTokens !== undefined && response.outputTokens > maxTokens)
      return {
        rule: 'token-cap',
        message: `The response used ${response.outputTokens} output tokens, over the cap of ${maxTokens}.`,
      };
    return undefined;
  };
}

/** A response the model stopped for a reason other than finishing (safety, recitation, …). */
export const abnormalStopRule: RedFlagRule<ModelResponse> = (response) =>
  response.finishReason === 'safety' || response.finishReason === 'other'
    ? {
        rule: 'abnormal-stop',
        message: `The model stopped with reason "${response.finishReason}".`,
      }
    : undefined;

/** A custom predicate as a rule: flags when `isSuspect` returns true. */
export function predicateRule<R>(
  rule: string,
  message: string,
  isSuspect: (response: R) => boolean,
): RedFlagRule<R> {
  return (response) => (isSuspect(response) ? { rule, message } : undefined);
}

/**
 * Parses a response as JSON (the whole text, or the single fenced ```json block it consists of)
 * and validates it with a zod schema. Malformed JSON is a `parse` flag, a schema mismatch a
 * `schema` flag naming the first problems. Nothing is repaired.
 */
export function jsonSchemaParser<T>(schema: ZodType<T>): ResponseParser<ModelResponse, T> {
  return (response) => {
    const body = unfence(response.text);
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch (error) {
      return {
        ok: false,
        flag: { rule: 'parse', message: `The response is not JSON: ${(error as Error).message}` },
      };
    }
    const result = schema.safeParse(json);
    if (result.success) return { ok: true, value: result.data };
    const problems = result.error.issues
      .slice(0, 3)
      .map(
        (issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`,
      )
      .join('; ');
    return {
      ok: false,
      flag: { rule: 'schema', message: `The response does not fit the schema: ${problems}` },
    };
  };
}

const FENCE = /^\s*```(?:json)?[ \t]*\r?\n([\s\S]*?)\r?\n?```\s*$/;

/** The body of the single fenced (```json) block a text consists of, or the text itself. */
export function unfence(text: string): string {
  const match = FENCE.exec(text);
  return match?.[1] ?? text;
}
