import type { ZodType } from 'zod';
import type { RedFlag } from '../voting/types.js';
import type { FlagRule } from './rule.js';

/** What a language model returned for one draw, as far as red-flagging needs it. */
export interface ModelResponse {
  readonly text: string;
  /** Normalised: `stop`, `length` (output cap hit), `safety`, `other`, or undefined when unknown. */
  readonly finishReason?: 'stop' | 'length' | 'safety' | 'other' | undefined;
  readonly outputTokens?: number | undefined;
}

/** A response as the `response` rules judge it. */
export interface ResponseInput {
  readonly response: ModelResponse;
  /** The output cap: more tokens is over-long. Undefined: not capped here. */
  readonly maxTokens?: number | undefined;
  /** Whose answer it is: a worker's is named so in messages. */
  readonly speaker?: 'model' | 'worker' | undefined;
  /** The schema a JSON answer must fit; undefined when the answer is not JSON. */
  readonly schema?: ZodType<unknown> | undefined;
}

const one = (flag: RedFlag | undefined): RedFlag[] => (flag === undefined ? [] : [flag]);

export const truncatedRule: FlagRule<ResponseInput> = {
  id: 'truncated',
  scope: 'response',
  description: 'The answer stopped at its output cap (finish reason `length`): it is cut short.',
  check: ({ response, speaker }) =>
    response.finishReason !== 'length'
      ? []
      : [
          {
            rule: 'truncated',
            message:
              speaker === 'worker'
                ? "The worker's answer reached its output cap."
                : 'The response stopped at the output-token cap.',
          },
        ],
};

export const tokenCapRuleDef: FlagRule<ResponseInput> = {
  id: 'token-cap',
  scope: 'response',
  description: 'The answer used more output tokens than its cap: a long answer is a confused one.',
  check: ({ response, maxTokens }) =>
    response.finishReason === 'length' ||
    maxTokens === undefined ||
    response.outputTokens === undefined ||
    response.outputTokens <= maxTokens
      ? []
      : [
          {
            rule: 'token-cap',
            message: `The response used ${response.outputTokens} output tokens, over the cap of ${maxTokens}.`,
          },
        ],
};

export const abnormalStopRuleDef: FlagRule<ResponseInput> = {
  id: 'abnormal-stop',
  scope: 'response',
  description: 'The model stopped for a reason other than finishing (safety, recitation, other).',
  check: ({ response, speaker }) =>
    response.finishReason === 'safety' || response.finishReason === 'other'
      ? [
          {
            rule: 'abnormal-stop',
            message: `The ${speaker === 'worker' ? "worker's model" : 'model'} stopped with reason "${response.finishReason}".`,
          },
        ]
      : [],
};

/**
 * A JSON answer read with `schema`: the whole text, or the single fenced ```json block it consists
 * of. Malformed JSON is a `parse` flag, a schema mismatch a `schema` flag naming the first
 * problems. Nothing is repaired.
 */
export function readJson<T>(
  schema: ZodType<T>,
  text: string,
): { readonly ok: true; readonly value: T } | { readonly ok: false; readonly flag: RedFlag } {
  let json: unknown;
  try {
    json = JSON.parse(unfence(text));
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
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('; ');
  return {
    ok: false,
    flag: { rule: 'schema', message: `The response does not fit the schema: ${problems}` },
  };
}

/** The `readJson` flag with this id, for an answer that has a schema. */
const jsonFlag =
  (id: string) =>
  ({ response, schema }: ResponseInput): RedFlag[] => {
    if (schema === undefined) return [];
    const read = readJson(schema, response.text);
    return one(!read.ok && read.flag.rule === id ? read.flag : undefined);
  };

export const parseRule: FlagRule<ResponseInput> = {
  id: 'parse',
  scope: 'response',
  description: 'A JSON answer that is not JSON (prose around it is not repaired away).',
  check: jsonFlag('parse'),
};

export const schemaRule: FlagRule<ResponseInput> = {
  id: 'schema',
  scope: 'response',
  description: 'A JSON answer that does not fit its schema (the first problems are named).',
  check: jsonFlag('schema'),
};

/** The rules a response meets before it is parsed, in the order their flags are listed. */
export const RESPONSE_RULES: readonly FlagRule<ResponseInput>[] = [
  truncatedRule,
  tokenCapRuleDef,
  abnormalStopRuleDef,
];

/** The parser's own rules (the answer's value is read once, by `jsonSchemaParser`). */
export const PARSE_RULES: readonly FlagRule<ResponseInput>[] = [parseRule, schemaRule];

const FENCE = /^\s*```(?:json)?[ \t]*\r?\n([\s\S]*?)\r?\n?```\s*$/;

/** The body of the single fenced (```json) block a text consists of, or the text itself. */
export function unfence(text: string): string {
  const match = FENCE.exec(text);
  return match?.[1] ?? text;
}
