import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { MakerError, type Redactor } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { pageAssets } from './assets.js';
import { RunChannels } from './channels.js';
import { journalTail } from './journal-tail.js';
import { memoDiff, type DiffOf } from './diffs.js';
import { nodeDetail } from './model.js';
import { pageHtml } from './page-html.js';
import type { ViewSource } from './source.js';
import { JOURNAL_FILE_NAME } from '../../core/workspace-files.js';
import { join } from 'node:path';

export interface ViewServerOptions {
  readonly source: ViewSource;
  /** The run the page opens on (default: the latest run, followed as new ones start). */
  readonly runId?: string | undefined;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  /** Every byte sent passes it (the configured keys never leave). */
  readonly redact?: Redactor;
}

export interface ViewHandle {
  /** The page's address, token included: the only way in. */
  readonly url: string;
  readonly port: number;
  /** Stops serving: open event streams end, connections close, the source is released. */
  close(): Promise<void>;
}

const TOKEN_HEADER = 'x-maker-token';
const MAX_BODY = 16 * 1024;

const answerBody = z.object({
  runId: z
    .string()
    .min(1)
    .max(LIMITS.idChars)
    .regex(/^[a-z0-9-]+$/),
  questionId: z.string().min(1).max(LIMITS.idChars),
  answer: z
    .string()
    .min(1)
    .max(LIMITS.answerChars + 100),
});

/**
 * Serves the live view of a workspace's runs on 127.0.0.1 only. Every request needs the random
 * token (in the query, or for the answer endpoint in the `X-Maker-Token` header, so a page
 * elsewhere cannot answer even when it knows the address), and a loopback `Host` header (a DNS
 * rebinding defence). Updates are server-sent events (`/events`).
 */
export async function startViewServer(options: ViewServerOptions): Promise<ViewHandle> {
  const source = options.source;
  const redact = options.redact ?? ((text: string) => text);
  const view: Served = {
    token: randomBytes(24).toString('base64url'),
    redact,
    source,
    channels: new RunChannels(source, redact),
    // A diff between two commits never changes: a node's detail, asked again as its vote goes on,
    // reuses them.
    diff: source.diff === undefined ? undefined : memoDiff(source.diff),
    runId: options.runId,
  };
  let port = 0;
  const server = createServer((req, res) => {
    void route(view, port, req, res).catch((error: unknown) => {
      if (!res.headersSent)
        send(res, 500, 'text/plain', redact(`Internal error: ${(error as Error).message}`));
      else res.end();
    });
  });
  await listen(server, options.port ?? 0);
  port = (server.address() as AddressInfo).port;
  const stopWatching = source.watch(view.channels);
  let closing: Promise<void> | undefined;
  const runPart = options.runId === undefined ? '' : `&run=${encodeURIComponent(options.runId)}`;
  return {
    url: `http://127.0.0.1:${port}/?token=${view.token}${runPart}`,
    port,
    close: () => {
      closing ??= (async () => {
        stopWatching();
        view.channels.close();
        await closeServer(server);
        await source.close();
      })();
      return closing;
    },
  };
}

/** What the server's requests are answered from. */
interface Served {
  /** The random token every request needs. */
  readonly token: string;
  readonly redact: Redactor;
  readonly source: ViewSource;
  readonly channels: RunChannels;
  readonly diff: DiffOf | undefined;
  /** The run a page opens on when its address names none (undefined: the latest). */
  readonly runId: string | undefined;
}

/**
 * One request, checked (a loopback host; the token; GET, but for the answer endpoint, which
 * checks its own), then sent where its path says.
 */
async function route(
  view: Served,
  port: number,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const host = (req.headers.host ?? '').toLowerCase();
  if (!loopbackHosts(port).has(host)) {
    send(res, 403, 'text/plain', 'Forbidden: this server answers to 127.0.0.1 only.');
    return;
  }
  const url = new URL(req.url ?? '/', `http://${host}`);
  if (url.pathname === '/api/answer') {
    await answer(view, req, res, host);
    return;
  }
  if (!sameToken(url.searchParams.get('token'), view.token)) {
    send(
      res,
      403,
      'text/plain',
      'Forbidden: open the address maker view printed (it carries the token).',
    );
    return;
  }
  if (req.method !== 'GET') {
    send(res, 405, 'text/plain', 'Method not allowed.');
    return;
  }
  const runParam = url.searchParams.get('run');
  const runId = runParam === null || runParam === '' ? view.runId : runParam;
  switch (url.pathname) {
    case '/':
      return sendPage(view, res, runId);
    case '/events':
      return streamEvents(view, res, runId);
    case '/api/snapshot':
      return sendSnapshot(view, res, runId);
    case '/api/node':
      return sendNode(view, res, runId, url.searchParams.get('id') ?? '');
    default:
      send(res, 404, 'text/plain', 'Not found.');
  }
}

/** The `Host` headers served: its port on the loopback names (against DNS rebinding). */
function loopbackHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

/** The page, its script and style allowed by a nonce of this response's own. */
async function sendPage(view: Served, res: ServerResponse, runId: string | undefined) {
  const nonce = randomBytes(16).toString('base64');
  const html = pageHtml(
    { mode: 'live', token: view.token, runId: runId ?? null },
    await pageAssets(),
    {
      title: 'MAKER view',
      nonce,
    },
  );
  send(res, 200, 'text/html; charset=utf-8', view.redact(html), {
    'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  });
}

/** The run's server-sent events: its journal so far, then what changes, until the page leaves. */
async function streamEvents(view: Served, res: ServerResponse, runId: string | undefined) {
  res.writeHead(200, {
    ...COMMON_HEADERS,
    'content-type': 'text/event-stream; charset=utf-8',
    connection: 'keep-alive',
  });
  res.write('retry: 1000\n\n');
  const resolved = await view.channels.resolve(runId);
  const log =
    resolved === undefined
      ? []
      : await journalTail(join(view.source.dir, JOURNAL_FILE_NAME), resolved);
  await view.channels.join(runId ?? '', res, log);
}

async function sendSnapshot(view: Served, res: ServerResponse, runId: string | undefined) {
  const snapshot = await view.channels.snapshot(runId);
  if (snapshot === undefined)
    send(res, 404, 'application/json', JSON.stringify({ error: 'No such run.' }));
  else send(res, 200, 'application/json', view.redact(JSON.stringify(snapshot)));
}

/** One node of the run in full (see {@link nodeDetail}). */
async function sendNode(view: Served, res: ServerResponse, runId: string | undefined, id: string) {
  const state = await view.source.state();
  const resolved = await view.channels.resolve(runId);
  const run = resolved === undefined ? undefined : state.runs[resolved];
  const detail = run === undefined ? undefined : await nodeDetail(run, id, view.diff);
  if (detail === undefined)
    send(res, 404, 'application/json', JSON.stringify({ error: `No node "${id}".` }));
  else send(res, 200, 'application/json', view.redact(JSON.stringify(detail)));
}

/** An answer to a question, from the page: checked, read, then given to the run's source. */
async function answer(
  view: Served,
  req: IncomingMessage,
  res: ServerResponse,
  host: string,
): Promise<void> {
  const refused = answerRefusal(req, host, view.token);
  if (refused !== undefined) {
    send(res, refused.status, 'application/json', JSON.stringify({ error: refused.error }));
    return;
  }
  const body = await readAnswer(req);
  if (body === undefined) {
    send(
      res,
      400,
      'application/json',
      JSON.stringify({ error: 'The answer must be {runId, questionId, answer}.' }),
    );
    return;
  }
  await giveAnswer(view, res, body);
}

/** Why an answer request is refused, before its body is read: undefined when it is not. */
function answerRefusal(
  req: IncomingMessage,
  host: string,
  token: string,
): { status: number; error: string } | undefined {
  const given = req.headers[TOKEN_HEADER];
  if (!sameToken(typeof given === 'string' ? given : null, token))
    return { status: 403, error: 'Forbidden: the answer needs the X-Maker-Token header.' };
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${host}`)
    return { status: 403, error: 'Forbidden: answers come from the view itself.' };
  if (req.method !== 'POST') return { status: 405, error: 'Answers are POSTed.' };
  if (!(req.headers['content-type'] ?? '').startsWith('application/json'))
    return { status: 415, error: 'Send the answer as JSON.' };
  return undefined;
}

/** The answer's body, parsed; undefined when too long, not JSON, or not an answer. */
async function readAnswer(req: IncomingMessage): Promise<z.infer<typeof answerBody> | undefined> {
  const text = await readBody(req);
  let parsed;
  try {
    parsed = text === undefined ? undefined : answerBody.safeParse(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  return parsed?.success === true ? parsed.data : undefined;
}

/** Gives the answer to the run, where this view may answer it: the page learns what it did. */
async function giveAnswer(
  view: Served,
  res: ServerResponse,
  { runId, questionId, answer }: z.infer<typeof answerBody>,
): Promise<void> {
  const answering = await view.source.answering(runId);
  if (!answering.ok) {
    send(res, 409, 'application/json', view.redact(JSON.stringify({ error: answering.note })));
    return;
  }
  try {
    const { question, note } = await view.source.answer(runId, questionId, answer);
    view.channels.changed(runId);
    send(res, 200, 'application/json', view.redact(JSON.stringify({ question, note })));
  } catch (error) {
    if (!(error instanceof MakerError)) throw error;
    const status = error.code === 'usage' ? 400 : error.code === 'workspace-locked' ? 409 : 500;
    send(res, status, 'application/json', view.redact(JSON.stringify({ error: error.message })));
  }
}

/** Listens on 127.0.0.1 only (`port` 0: a free one). */
function listen(server: Server, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

const COMMON_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
} as const;

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...COMMON_HEADERS,
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

/** Constant-time comparison of a given token with ours. */
function sameToken(given: string | null, token: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
