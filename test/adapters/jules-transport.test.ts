import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeTransport } from '../../src/adapters/jules/node-transport.js';
import { request } from '../../src/adapters/jules/http.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
const closes: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closes.splice(0).map((close) => close()));
});

/** A loopback server answering with `handler`; counts the connections it accepted. */
async function serve(handler: Handler) {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => handler(req, res, body));
  });
  let connections = 0;
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closes.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1alpha/sessions`, connections: () => connections };
}

const call = { method: 'POST', apiKey: 'the-key', body: { a: 1 }, timeoutMs: 2000 };

describe('nodeTransport', () => {
  it('sends the method, key and JSON body, and reads status, body, Retry-After and Date', async () => {
    const seen: { method?: string; key?: unknown; type?: unknown; body?: string }[] = [];
    const { url } = await serve((req, res, body) => {
      seen.push({
        method: req.method,
        key: req.headers['x-goog-api-key'],
        type: req.headers['content-type'],
        body,
      });
      res.writeHead(429, {
        'retry-after': '7',
        date: 'Mon, 23 Nov 2026 08:50:00 GMT',
        'content-type': 'application/json',
      });
      res.end('{"error":{}}');
    });
    const answer = await request(nodeTransport(), url, call, undefined);
    expect(answer).toEqual({
      status: 429,
      text: '{"error":{}}',
      retryAfter: '7',
      date: 'Mon, 23 Nov 2026 08:50:00 GMT',
    });
    expect(seen).toEqual([
      { method: 'POST', key: 'the-key', type: 'application/json', body: '{"a":1}' },
    ]);
  });

  it('keeps its connection alive between requests', async () => {
    const server = await serve((_req, res) => res.end('{}'));
    const transport = nodeTransport();
    for (let i = 0; i < 3; i++) await request(transport, server.url, call, undefined);
    expect(server.connections()).toBe(1);
  });

  it('shares its connections with every transport in the process (a new client reuses them)', async () => {
    const server = await serve((_req, res) => res.end('{}'));
    for (let i = 0; i < 3; i++) await request(nodeTransport(), server.url, call, undefined);
    expect(server.connections()).toBe(1);
  });

  it('sends each request to its own URL’s origin and path, query included', async () => {
    const a = await serve((req, res) => res.end(`a ${req.url}`));
    const b = await serve((req, res) => res.end(`b ${req.url}`));
    const transport = nodeTransport();
    const get = { ...call, method: 'GET', body: undefined };
    for (const [url, text] of [
      [a.url, 'a /v1alpha/sessions'],
      [`${b.url}/1?pageSize=5`, 'b /v1alpha/sessions/1?pageSize=5'],
      [`${a.url}/2`, 'a /v1alpha/sessions/2'],
    ] as const)
      expect((await request(transport, url, get, undefined)).text).toBe(text);
    await expect(request(transport, 'ftp://127.0.0.1/x', get, undefined)).rejects.toThrow(
      /unsupported protocol ftp:/,
    );
  });

  it('sends nothing under a signal already aborted', async () => {
    let seen = 0;
    const { url } = await serve((_req, res) => (seen++, res.end('{}')));
    const controller = new AbortController();
    controller.abort(new Error('stopped'));
    await expect(request(nodeTransport(), url, call, controller.signal)).rejects.toThrow(/aborted/);
    expect(seen).toBe(0);
  });

  it.each<[string, Handler, RegExp]>([
    ['the connection closes with no answer', (req) => req.socket.destroy(), /socket hang up/],
    [
      'the answer is cut off',
      (_req, res) => {
        res.writeHead(200, { 'content-length': '100' });
        res.write('{"half":');
        setTimeout(() => res.socket?.destroy(), 20);
      },
      /aborted|cut off/,
    ],
    ['no answer arrives in time', () => undefined, /no answer in/],
  ])('throws when %s', async (_what, handler, message) => {
    const { url } = await serve(handler);
    await expect(
      request(nodeTransport(), url, { ...call, timeoutMs: 300 }, undefined),
    ).rejects.toThrow(message);
  });

  it('stops at the signal with its reason', async () => {
    const { url } = await serve(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stopped by the run')), 50);
    await expect(request(nodeTransport(), url, call, controller.signal)).rejects.toThrow();
    expect(controller.signal.aborted).toBe(true);
  });
});
