import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { errorEnvelope, sendJson } from './google-http.js';

/**
 * What the fake Gemini API and the fake Code Assist service share: the `GenerateContentRequest`
 * they read, the scripted replies they give (an answer, a block, an error with Google's details, a
 * cut connection, a hang before or midway through the answer), and the `GenerateContentResponse`
 * they write, whole or as server-sent events.
 */

/** One `generateContent` call as a fake saw it. */
export interface FakeGeminiRequest {
  readonly model: string;
  readonly apiKey: string | undefined;
  readonly system: string | undefined;
  /** The text of the last user turn. */
  readonly prompt: string;
  readonly temperature: number | undefined;
  readonly maxOutputTokens: number | undefined;
  readonly responseMimeType: string | undefined;
  /** `generateContent` or `streamGenerateContent` (answered as server-sent events). */
  readonly method: 'generateContent' | 'streamGenerateContent';
  /** Names of the functions (tools) the request declares. */
  readonly tools: readonly string[];
  /** The function response in the last turn, if the last turn is one: the tool's name and its output as text. */
  readonly functionResponse: { readonly name: string; readonly text: string } | undefined;
  /** The whole request body, for assertions on anything else. */
  readonly body: unknown;
}

/**
 * A scripted answer: a candidate (optionally stalling midway: its first part is sent, then
 * nothing), a blocked prompt, an API error with its HTTP status (and Google's error details), no
 * answer at all (a cut connection), or a hang (nothing is ever sent).
 */
export type FakeGeminiReply =
  | {
      readonly text: string;
      /** Function calls to make instead of (or after) the text. */
      readonly functionCalls?: readonly {
        readonly name: string;
        readonly args: Readonly<Record<string, unknown>>;
      }[];
      readonly finishReason?: string;
      readonly outputTokens?: number;
      readonly inputTokens?: number;
      /** Hidden thinking tokens (`usageMetadata.thoughtsTokenCount`), billed as output. */
      readonly thoughtTokens?: number;
      /** Send the answer's first part, then nothing more (a stream that stops mid-answer). */
      readonly stallMidway?: true;
    }
  /** The prompt is blocked: no candidate, `promptFeedback.blockReason` (`SAFETY`, `PROHIBITED_CONTENT`, …). */
  | { readonly blocked: string }
  | {
      readonly status: number;
      readonly message: string;
      readonly headers?: Readonly<Record<string, string>>;
      /** Google's error details (`QuotaFailure`, `RetryInfo`, `ErrorInfo`, …). */
      readonly details?: readonly Record<string, unknown>[];
    }
  /** The connection is cut with no answer (a reset, a network that went away mid-call). */
  | { readonly drop: true }
  /** Nothing is ever sent: the request hangs until the fake closes. */
  | { readonly hang: true };

export type FakeGeminiResponder = (
  request: FakeGeminiRequest,
  index: number,
) => FakeGeminiReply | Promise<FakeGeminiReply>;

const requestSchema = z
  .object({
    contents: z
      .array(
        z
          .object({
            role: z.string().optional(),
            parts: z.array(z.object({ text: z.string().optional() }).loose()),
          })
          .loose(),
      )
      .min(1),
    systemInstruction: z
      .object({ parts: z.array(z.object({ text: z.string().optional() }).loose()) })
      .loose()
      .optional(),
    generationConfig: z
      .object({
        temperature: z.number().optional(),
        maxOutputTokens: z.number().optional(),
        responseMimeType: z.string().optional(),
      })
      .loose()
      .optional(),
  })
  .loose();

/** Reads a `GenerateContentRequest` (`json`); a string is the reason it is not one. */
export function readGeminiRequest(
  json: unknown,
  route: { model: string; method: FakeGeminiRequest['method']; apiKey: string | undefined },
): FakeGeminiRequest | string {
  const parsed = requestSchema.safeParse(json);
  if (!parsed.success) return `Invalid request: ${parsed.error.issues[0]?.message ?? 'bad body'}`;
  const body = parsed.data;
  const lastTurn = body.contents[body.contents.length - 1];
  const responsePart = lastTurn?.parts.find((p) => 'functionResponse' in p) as
    { functionResponse?: { name?: string; response?: unknown } } | undefined;
  const declared = (
    (json as { tools?: { functionDeclarations?: { name?: string }[] }[] }).tools ?? []
  ).flatMap((t) => (t.functionDeclarations ?? []).map((d) => d.name ?? ''));
  return {
    model: route.model,
    apiKey: route.apiKey,
    system: body.systemInstruction?.parts.map((p) => p.text ?? '').join(''),
    prompt: lastTurn?.parts.map((p) => p.text ?? '').join('') ?? '',
    temperature: body.generationConfig?.temperature,
    maxOutputTokens: body.generationConfig?.maxOutputTokens,
    responseMimeType: body.generationConfig?.responseMimeType,
    method: route.method,
    tools: declared,
    functionResponse:
      responsePart?.functionResponse === undefined
        ? undefined
        : {
            name: responsePart.functionResponse.name ?? '',
            text: responseText(responsePart.functionResponse.response),
          },
    body: json,
  };
}

/** A function response's text: Gemini CLI sends `{output: "..."}`; anything else as JSON. */
function responseText(response: unknown): string {
  const output = (response as { output?: unknown } | null)?.output;
  return typeof output === 'string' ? output : JSON.stringify(response ?? null);
}

/**
 * Answers `request` with `reply`. `wrap` puts each response object in the service's own envelope
 * (Code Assist's `{response, traceId}`).
 */
export function sendReply(
  req: IncomingMessage,
  res: ServerResponse,
  request: FakeGeminiRequest,
  index: number,
  reply: FakeGeminiReply,
  wrap: (payload: unknown) => unknown = (payload) => payload,
): void {
  if ('hang' in reply) return;
  if ('drop' in reply) {
    req.socket.destroy();
    return;
  }
  if ('status' in reply) {
    sendJson(
      res,
      reply.status,
      errorEnvelope(reply.status, reply.message, [], reply.details ?? []),
      reply.headers,
    );
    return;
  }
  if ('blocked' in reply) {
    const promptTokenCount = Math.ceil(request.prompt.length / 4);
    sendJson(
      res,
      200,
      wrap({
        promptFeedback: { blockReason: reply.blocked },
        usageMetadata: { promptTokenCount, totalTokenCount: promptTokenCount },
        modelVersion: request.model,
        responseId: `fake-${index}`,
      }),
    );
    return;
  }
  const payload = answerPayload(request, index, reply);
  if (request.method === 'streamGenerateContent') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (reply.stallMidway === true) {
      // The answer's first words arrive; the rest never does.
      const first = {
        ...payload,
        candidates: [
          {
            content: {
              role: 'model',
              parts: [{ text: reply.text.slice(0, Math.ceil(reply.text.length / 2)) }],
            },
            index: 0,
          },
        ],
      };
      res.write(`data: ${JSON.stringify(wrap(first))}\r\n\r\n`);
      return;
    }
    res.end(`data: ${JSON.stringify(wrap(payload))}\r\n\r\n`);
    return;
  }
  if (reply.stallMidway === true) {
    const whole = JSON.stringify(wrap(payload));
    res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
    res.write(whole.slice(0, Math.ceil(whole.length / 2)));
    return;
  }
  sendJson(res, 200, wrap(payload));
}

/**
 * A `GenerateContentResponse` as Gemini writes one: thinking (at most its budget) comes first and
 * counts against `maxOutputTokens`; an answer that does not fit what is left is cut (MAX_TOKENS).
 */
function answerPayload(
  request: FakeGeminiRequest,
  index: number,
  reply: Extract<FakeGeminiReply, { text: string }>,
) {
  const inputTokens = reply.inputTokens ?? Math.ceil(request.prompt.length / 4);
  const budget = (
    request.body as { generationConfig?: { thinkingConfig?: { thinkingBudget?: number } } }
  ).generationConfig?.thinkingConfig?.thinkingBudget;
  const cap = request.maxOutputTokens ?? Infinity;
  const thoughtTokens = Math.min(reply.thoughtTokens ?? 0, budget ?? Infinity, cap);
  const wanted = reply.outputTokens ?? Math.ceil(reply.text.length / 4);
  const cut = thoughtTokens + wanted > cap;
  const outputTokens = cut ? cap - thoughtTokens : wanted;
  const text = cut ? reply.text.slice(0, outputTokens * 4) : reply.text;
  const parts = [
    ...(text === '' ? [] : [{ text }]),
    ...(reply.functionCalls ?? []).map((call) => ({
      functionCall: { name: call.name, args: call.args },
    })),
  ];
  return {
    candidates: [
      {
        content: { role: 'model', parts },
        finishReason: cut ? 'MAX_TOKENS' : (reply.finishReason ?? 'STOP'),
        index: 0,
      },
    ],
    usageMetadata: {
      promptTokenCount: inputTokens,
      candidatesTokenCount: outputTokens,
      ...(thoughtTokens === 0 ? {} : { thoughtsTokenCount: thoughtTokens }),
      totalTokenCount: inputTokens + outputTokens + thoughtTokens,
    },
    modelVersion: request.model,
    responseId: `fake-${index}`,
  };
}
