import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  readGeminiRequest,
  sendReply,
  type FakeGeminiReply,
  type FakeGeminiRequest,
  type FakeGeminiResponder,
} from './fake-gemini-shapes.js';
import { errorEnvelope, readBody, sendJson } from './google-http.js';

export type { FakeGeminiReply, FakeGeminiRequest, FakeGeminiResponder };

export interface FakeGemini {
  /** Pass as `httpOptions.baseUrl` (or `GOOGLE_GEMINI_BASE_URL`). */
  readonly baseUrl: string;
  readonly requests: readonly FakeGeminiRequest[];
  close(): Promise<void>;
}

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
    const request = readGeminiRequest(json, {
      model: route[2] as string,
      method: route[3] as FakeGeminiRequest['method'],
      apiKey: header(req, 'x-goog-api-key') ?? url.searchParams.get('key') ?? undefined,
    });
    if (typeof request === 'string') {
      sendError(res, 400, request);
      return;
    }
    const index = requests.length;
    requests.push(request);
    sendReply(req, res, request, index, await respond(request, index));
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
