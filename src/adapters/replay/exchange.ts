import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { GenerateRequest } from '../../ports/language-model.js';

/** Version of one recorded exchange file; bumped when its shape changes. */
export const EXCHANGE_VERSION = 1;

/** The parts of a request that decide its answer: everything but the abort signal. */
export function requestContent(request: GenerateRequest) {
  return {
    system: request.system ?? null,
    prompt: request.prompt,
    temperature: request.temperature,
    maxOutputTokens: request.maxOutputTokens ?? null,
    thinkingBudget: request.thinkingBudget ?? null,
    json: request.json === undefined ? null : { schema: request.json.schema ?? null },
    draw: request.draw ?? null,
  };
}

/**
 * A request's identity for replay: SHA-256 of its content ({@link requestContent}) as canonical
 * JSON (keys sorted). Volatile fields (the abort signal) and the model's name are left out, so the
 * same step of the same run asks the same question.
 */
export function requestHash(request: GenerateRequest): string {
  return createHash('sha256')
    .update(canonical(requestContent(request)))
    .digest('hex');
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** One recorded exchange, as a file `<hash>-<n>.json` (`n`: the nth time this request was made). */
export const exchangeSchema = z.object({
  $schemaVersion: z.literal(EXCHANGE_VERSION),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  /** How many times this request had been made before in the recording. */
  occurrence: z.number().int().min(0),
  model: z.string(),
  request: z
    .object({
      system: z.string().nullable(),
      prompt: z.string(),
      temperature: z.number(),
      maxOutputTokens: z.number().nullable(),
      thinkingBudget: z.number().nullable(),
      json: z.object({ schema: z.unknown() }).nullable(),
      draw: z.string().nullable(),
    })
    .loose(),
  /** What the model answered; absent when the call failed (`error`). */
  response: z
    .object({
      text: z.string(),
      finishReason: z.enum(['stop', 'length', 'safety', 'other']).nullable(),
      outputTokens: z.number().nullable(),
      inputTokens: z.number().nullable(),
      /** Absent in recordings made before thinking tokens were counted. */
      thoughtTokens: z.number().optional(),
      /** Requests the answer took, when more than one (a retry with more room to think). */
      requests: z.number().int().min(2).optional(),
    })
    .optional(),
  error: z
    .object({ code: z.string(), message: z.string(), status: z.number().nullable() })
    .optional(),
  startedAt: z.string(),
  ms: z.number(),
});
export type Exchange = z.infer<typeof exchangeSchema>;

/** The file name of the `occurrence`th exchange of a request. */
export function exchangeFileName(hash: string, occurrence: number): string {
  return `${hash}-${occurrence}.json`;
}
