import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { MakerError, type Redactor } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { pageAssets } from './assets.js';
import { RunChannels } from './channels.js';
import { journalTail } from './journal-tail.js';
import { memoDiff } from './diffs.js';
import { nodeDetail } from './model.js';
import { pageHtml } from './page-html.js';
import type { ViewSource } from './source.js';
import { JOURNAL_FILE_NAME } from '../../adapters/state/state-file.js';
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
// eslint-disable-next-line max-lines-per-function -- over 80 lines: to be split by job (#40)
export async function startViewServer(options: ViewServerOptions): Promise<ViewHandle> {
  const token = randomBytes(24).toString('base64url');
  const redact = options.redact ?? ((text: string) => text);
  const source = options.source;
  const channels = new RunChannels(source, redact);
  // A diff between two commits never changes: a node's detail, asked again as its vote goes on, reuses them.
  const diff = source.diff === undefined ? undefined : memoDiff(source.diff);
  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        send(res, 500, 'text/plain', redact(`Internal error: ${(error as Error).message}`));
      else res.end();
    });
  });
  let port = 0;

  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const host = (req.headers.host ?? '').toLowerCase();
    if (!allowedHosts().has(host)) {
      send(res, 403, 'text/plain', 'Forbidden: this server answers to 127.0.0.1 only.');
      return;
    }
    const url = new URL(req.url ?? '/', `http://${host}`);
    if (url.pathname === '/api/answer') {
      await answer(req, res, host);
      return;
    }
    if (!sameToken(url.searchParams.get('token'), token)) {
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
    const runId = runParam === null || runParam === '' ? options.runId : runParam;
    switch (url.pathname) {
      case '/': {
        const nonce = randomBytes(16).toString('base64');
        const html = pageHtml({ mode: 'live', token, runId: runId ?? null }, await pageAssets(), {
          title: 'MAKER view',
          nonce,
        });
        send(res, 200, 'text/html; charset=utf-8', redact(html), {
          'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
        });
        return;
      }
      case '/events': {
        res.writeHead(200, {
          ...COMMON_HEADERS,
          'content-type': 'text/event-stream; charset=utf-8',
          connection: 'keep-alive',
        });
        res.write('retry: 1000\n\n');
        const resolved = await channels.resolve(runId);
        const log =
          resolved === undefined
            ? []
            : await journalTail(join(source.dir, JOURNAL_FILE_NAME), resolved);
        await channels.join(runId ?? '', res, log);
        return;
      }
      case '/api/snapshot': {
        const snapshot = await channels.snapshot(runId);
        if (snapshot === undefined)
          send(res, 404, 'application/json', JSON.stringify({ error: 'No such run.' }));
        else send(res, 200, 'application/json', redact(JSON.stringify(snapshot)));
        return;
      }
      case '/api/node': {
        const state = await source.state();
        const id = url.searchParams.get('id') ?? '';
        const resolved = await channels.resolve(runId);
        const run = resolved === undefined ? undefined : state.runs[resolved];
        const detail = run === undefined ? undefined : await nodeDetail(run, id, diff);
        if (detail === undefined)
          send(res, 404, 'application/json', JSON.stringify({ error: `No node "${id}".` }));
        else send(res, 200, 'application/json', redact(JSON.stringify(detail)));
        return;
      }
      default:
        send(res, 404, 'text/plain', 'Not found.');
    }
  }

  async function answer(req: IncomingMessage, res: ServerResponse, host: string): Promise<void> {
    const given = req.headers[TOKEN_HEADER];
    if (!sameToken(typeof given === 'string' ? given : null, token)) {
      send(
        res,
        403,
        'application/json',
        JSON.stringify({ error: 'Forbidden: the answer needs the X-Maker-Token header.' }),
      );
      return;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${host}`) {
      send(
        res,
        403,
        'application/json',
        JSON.stringify({ error: 'Forbidden: answers come from the view itself.' }),
      );
      return;
    }
    if (req.method !== 'POST') {
      send(res, 405, 'application/json', JSON.stringify({ error: 'Answers are POSTed.' }));
      return;
    }
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
      send(res, 415, 'application/json', JSON.stringify({ error: 'Send the answer as JSON.' }));
      return;
    }
    const text = await readBody(req);
    let parsed;
    try {
      parsed = text === undefined ? undefined : answerBody.safeParse(JSON.parse(text));
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || !parsed.success) {
      send(
        res,
        400,
        'application/json',
        JSON.stringify({ error: 'The answer must be {runId, questionId, answer}.' }),
      );
      return;
    }
    const { runId, questionId } = parsed.data;
    const answering = await source.answering(runId);
    if (!answering.ok) {
      send(res, 409, 'application/json', redact(JSON.stringify({ error: answering.note })));
      return;
    }
    try {
      const { question, note } = await source.answer(runId, questionId, parsed.data.answer);
      channels.changed(runId);
      send(res, 200, 'application/json', redact(JSON.stringify({ question, note })));
    } catch (error) {
      if (!(error instanceof MakerError)) throw error;
      const status = error.code === 'usage' ? 400 : error.code === 'workspace-locked' ? 409 : 500;
      send(res, status, 'application/json', redact(JSON.stringify({ error: error.message })));
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const stopWatching = source.watch(channels);
  let closing: Promise<void> | undefined;
  const runPart = options.runId === undefined ? '' : `&run=${encodeURIComponent(options.runId)}`;
  return {
    url: `http://127.0.0.1:${port}/?token=${token}${runPart}`,
    port,
    close: () => {
      closing ??= (async () => {
        stopWatching();
        channels.close();
        await closeServer(server);
        await source.close();
      })();
      return closing;
    },
  };
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
