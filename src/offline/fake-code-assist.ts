import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { z } from 'zod';
import {
  readGeminiRequest,
  sendReply,
  type FakeGeminiReply,
  type FakeGeminiRequest,
  type FakeGeminiResponder,
} from './fake-gemini-shapes.js';
import { errorEnvelope, readBody, sendJson } from './google-http.js';

/**
 * A local stand-in for Code Assist (`cloudcode-pa.googleapis.com/v1internal`), the service behind
 * a Google sign-in to Gemini CLI, so the real `gemini` binary can be driven as a signed-in person's:
 * point `CODE_ASSIST_ENDPOINT` at {@link FakeCodeAssist.baseUrl}, sign in with
 * `GOOGLE_GENAI_USE_GCA=true` and any `GOOGLE_CLOUD_ACCESS_TOKEN` (no Google token endpoint is
 * asked), and `HTTPS_PROXY` at {@link FakeCodeAssist.proxyUrl} too: every other Google address the
 * binary reaches for (its user-info and token checks) is refused at the proxy and recorded, so the
 * test never leaves 127.0.0.1.
 *
 * It answers `loadCodeAssist` (a free-tier user with a project), the model calls
 * (`streamGenerateContent` as server-sent events of `{response, traceId}`, `generateContent`,
 * `countTokens`) from `respond`, and Gemini CLI's bookkeeping calls with empty answers. `load`
 * scripts `loadCodeAssist` (a hang there is a `gemini` that hangs signing in at start-up).
 */

export interface FakeCodeAssist {
  /** `CODE_ASSIST_ENDPOINT`. */
  readonly baseUrl: string;
  /** `HTTPS_PROXY` (the same server: it answers Code Assist routes given as absolute URLs). */
  readonly proxyUrl: string;
  /** Model calls, as the Gemini API fake records them. */
  readonly requests: readonly FakeGeminiRequest[];
  /** Every `v1internal` method called, in order (`loadCodeAssist`, `streamGenerateContent`, …). */
  readonly calls: readonly string[];
  /** Hosts the binary tried to reach through the proxy, refused (`www.googleapis.com:443`). */
  readonly refused: readonly string[];
  close(): Promise<void>;
}

const bodySchema = z
  .object({ model: z.string().optional(), request: z.unknown().optional() })
  .loose();

const ROUTE = /^\/v1internal:([A-Za-z]+)$/;

export async function startFakeCodeAssist(
  respond: FakeGeminiResponder,
  options: { load?: FakeGeminiReply | 'hang' } = {},
): Promise<FakeCodeAssist> {
  const requests: FakeGeminiRequest[] = [];
  const calls: string[] = [];
  const refused: string[] = [];
  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      sendJson(
        res,
        500,
        errorEnvelope(
          500,
          `fake code assist: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
    });
  });
  // The proxy's other face: a tunnel to this server is made, tunnels to anywhere else refused.
  server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const { port } = server.address() as AddressInfo;
    if (req.url === `127.0.0.1:${port}` || req.url === `localhost:${port}`) {
      const upstream = connect(port, '127.0.0.1', () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
      return;
    }
    refused.push(req.url ?? '?');
    socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Through the proxy, the path comes as an absolute URL.
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const route = ROUTE.exec(url.pathname);
    if (route === null) {
      if (/^https?:/.test(req.url ?? '')) refused.push(url.host);
      sendJson(res, 404, errorEnvelope(404, `fake code assist: no route for ${url.pathname}`));
      return;
    }
    const method = route[1] as string;
    calls.push(method);
    const raw = req.method === 'POST' ? await readBody(req) : '';
    if (method === 'loadCodeAssist') {
      const load = options.load;
      if (load === 'hang') return;
      if (load !== undefined && 'status' in load) {
        sendReply(req, res, placeholder(), 0, load);
        return;
      }
      sendJson(res, 200, {
        currentTier: { id: 'free-tier', name: 'Gemini Code Assist for individuals' },
        allowedTiers: [
          { id: 'free-tier', name: 'Gemini Code Assist for individuals', isDefault: true },
        ],
        cloudaicompanionProject: 'fake-companion-project',
      });
      return;
    }
    if (method === 'streamGenerateContent' || method === 'generateContent') {
      const body = bodySchema.safeParse(JSON.parse(raw || '{}'));
      const request = readGeminiRequest(body.success ? body.data.request : undefined, {
        model: body.success ? (body.data.model ?? '') : '',
        method,
        apiKey: undefined,
      });
      if (typeof request === 'string') {
        sendJson(res, 400, errorEnvelope(400, request));
        return;
      }
      const index = requests.length;
      requests.push(request);
      sendReply(req, res, request, index, await respond(request, index), (response) => ({
        response,
        traceId: `fake-trace-${index}`,
      }));
      return;
    }
    if (method === 'countTokens') {
      sendJson(res, 200, { totalTokens: Math.ceil(raw.length / 4) });
      return;
    }
    if (method === 'onboardUser') {
      sendJson(res, 200, {
        done: true,
        response: { cloudaicompanionProject: { id: 'fake-companion-project' } },
      });
      return;
    }
    if (method === 'listExperiments') {
      sendJson(res, 200, { experimentIds: [], flags: [] });
      return;
    }
    if (method === 'retrieveUserQuota') {
      sendJson(res, 200, { buckets: [] });
      return;
    }
    // fetchAdminControls, recordCodeAssistMetrics, getCodeAssistGlobalUserSetting, …
    sendJson(res, 200, {});
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    baseUrl: base,
    proxyUrl: base,
    requests,
    calls,
    refused,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** A request of no model, for errors answered before any model call. */
function placeholder(): FakeGeminiRequest {
  return {
    model: '',
    apiKey: undefined,
    system: undefined,
    prompt: '',
    temperature: undefined,
    maxOutputTokens: undefined,
    responseMimeType: undefined,
    method: 'generateContent',
    tools: [],
    functionResponse: undefined,
    body: {},
  };
}
