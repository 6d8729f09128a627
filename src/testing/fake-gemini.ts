import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { errorEnvelope, readBody, sendJson } from './google-http.js';

/** One `generateContent` call as the fake saw it. */
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

/** A scripted answer: a candidate, a blocked prompt, an API error with its HTTP status, or no answer at all. */
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
    }
  /** The prompt is blocked: no candidate, `promptFeedback.blockReason` (`SAFETY`, `PROHIBITED_CONTENT`, …). */
  | { readonly blocked: string }
  | {
      readonly status: number;
      readonly message: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  /** The connection is cut with no answer (a reset, a network that went away mid-call). */
  | { readonly drop: true };

export type FakeGeminiResponder = (
  request: FakeGeminiRequest,
  index: number,
) => FakeGeminiReply | Promise<FakeGeminiReply>;

export interface FakeGemini {
  /** Pass as `httpOptions.baseUrl` (or `GOOGLE_GEMINI_BASE_URL`). */
  readonly baseUrl: string;
  readonly requests: readonly FakeGeminiRequest[];
  close(): Promise<void>;
}

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

const ROUTE = /^\/(v1beta|v1)\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

/**
 * A local stand-in for the Gemini API on 127.0.0.1 that speaks its real wire format for
 * `POST /v1beta/models/{model}:generateContent`: the request body the SDK sends, the JSON
 * `GenerateContentResponse` it parses, and Google's error envelope (`{error: {code, message,
 * status}}`). Every call is recorded; answers come from `respond`.
 */
export async function startFakeGemini(respond: FakeGeminiResponder): Promise<FakeGemini> {
  const requests: FakeGeminiRequest[] = [];
  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      sendError(res, 500, `fake gemini: ${error instanceof Error ? error.message : String(error)}`);
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const route = ROUTE.exec(url.pathname);
    if (req.method !== 'POST' || route === null) {
      sendError(res, 404, `fake gemini: no route for ${req.method ?? '?'} ${url.pathname}`);
      return;
    }
    const raw = await readBody(req);
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      sendError(res, 400, 'Invalid JSON payload received.');
      return;
    }
    const parsed = requestSchema.safeParse(json);
    if (!parsed.success) {
      sendError(res, 400, `Invalid request: ${parsed.error.issues[0]?.message ?? 'bad body'}`);
      return;
    }
    const body = parsed.data;
    const lastTurn = body.contents[body.contents.length - 1];
    const responsePart = lastTurn?.parts.find((p) => 'functionResponse' in p) as
      { functionResponse?: { name?: string; response?: unknown } } | undefined;
    const declared = (
      (json as { tools?: { functionDeclarations?: { name?: string }[] }[] }).tools ?? []
    ).flatMap((t) => (t.functionDeclarations ?? []).map((d) => d.name ?? ''));
    const request: FakeGeminiRequest = {
      model: route[2] as string,
      apiKey: header(req, 'x-goog-api-key') ?? url.searchParams.get('key') ?? undefined,
      system: body.systemInstruction?.parts.map((p) => p.text ?? '').join(''),
      prompt: lastTurn?.parts.map((p) => p.text ?? '').join('') ?? '',
      temperature: body.generationConfig?.temperature,
      maxOutputTokens: body.generationConfig?.maxOutputTokens,
      responseMimeType: body.generationConfig?.responseMimeType,
      method: route[3] as FakeGeminiRequest['method'],
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
    const index = requests.length;
    requests.push(request);
    const reply = await respond(request, index);
    if ('drop' in reply) {
      req.socket.destroy();
      return;
    }
    if ('status' in reply) {
      sendError(res, reply.status, reply.message, reply.headers);
      return;
    }
    if ('blocked' in reply) {
      const promptTokenCount = Math.ceil(request.prompt.length / 4);
      sendJson(res, 200, {
        promptFeedback: { blockReason: reply.blocked },
        usageMetadata: { promptTokenCount, totalTokenCount: promptTokenCount },
        modelVersion: request.model,
        responseId: `fake-${index}`,
      });
      return;
    }
    const inputTokens = reply.inputTokens ?? Math.ceil(request.prompt.length / 4);
    // As Gemini does: thinking (at most its budget) comes first and counts against
    // `maxOutputTokens`; an answer that does not fit what is left is cut there (MAX_TOKENS).
    const budget = (json as { generationConfig?: { thinkingConfig?: { thinkingBudget?: number } } })
      .generationConfig?.thinkingConfig?.thinkingBudget;
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
    const payload = {
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
    if (request.method === 'streamGenerateContent') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify(payload)}\r\n\r\n`);
    } else sendJson(res, 200, payload);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  sendJson(res, status, errorEnvelope(status, message), headers);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A function response's text: Gemini CLI sends `{output: "..."}`; anything else as JSON. */
function responseText(response: unknown): string {
  const output = (response as { output?: unknown } | null)?.output;
  return typeof output === 'string' ? output : JSON.stringify(response ?? null);
}
