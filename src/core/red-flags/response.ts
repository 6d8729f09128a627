import type { ZodType } from 'zod';
import type { RedFlag, Sample } from '../voting/types.js';
import {
  abnormalStopRuleDef,
  readJson,
  tokenCapRuleDef,
  truncatedRule,
  type ModelResponse,
} from './response-rules.js';

export { unfence, type ModelResponse } from './response-rules.js';

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
  return (response) =>
    [...truncatedRule.check({ response }), ...tokenCapRuleDef.check({ response, maxTokens })][0];
}

/** A response the model stopped for a reason other than finishing (safety, recitation, …). */
export const abnormalStopRule: RedFlagRule<ModelResponse> = (response) =>
  abnormalStopRuleDef.check({ response })[0];

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
 * and validates it with a zod schema (`readJson`: a `parse` or a `schema` flag). Nothing is
 * repaired.
 */
export function jsonSchemaParser<T>(schema: ZodType<T>): ResponseParser<ModelResponse, T> {
  return (response) => readJson(schema, response.text);
}
