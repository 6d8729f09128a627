import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorEnvelope, readBody, sendJson } from './google-http.js';

/**
 * What the proxy does to a request a rule hits:
 * - `drop-reply`: forward it, then cut the connection instead of replying (the server acted; the
 *   client never learns it);
 * - `status-after`: forward it, then answer `status` (a gateway that gave up on a slow reply);
 * - `refuse`: do not forward; cut the connection, or answer `status` when given (an outage);
 * - `delay`: forward it `ms` later (a slow network), then reply as the server did.
 */
export type ProxyFault =
  | { readonly kind: 'drop-reply' }
  | { readonly kind: 'delay'; readonly ms: number }
  | { readonly kind: 'status-after'; readonly status: number }
  | { readonly kind: 'refuse'; readonly status?: number };

export interface FaultRule {
  readonly method?: string;
  /** Tested against the request's path (no query string). */
  readonly path?: RegExp;
  /** Which of the requests matching method and path (1-based) are hit; all when absent. */
  readonly nth?: readonly number[];
  /** Hit only while `clock()` is in [from, to). */
  readonly during?: { readonly from: number; readonly to: number };
  readonly fault: ProxyFault;
}

export interface FaultProxy {
  /** The target's base URL, through the proxy (same path). */
  readonly baseUrl: string;
  /**
   * Every request, with the fault it got, when it arrived and when its reply ended (ms on
   * `performance.now()`; `endMs` absent while it is in flight or when the connection was cut).
   */
  readonly log: readonly {
    readonly method: string;
    readonly path: string;
    readonly fault?: ProxyFault['kind'];
    readonly startMs: number;
    readonly endMs?: number;
  }[];
  /** Replaces the rules (counts start again). */
  setRules(rules: readonly FaultRule[]): void;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'host',
  'content-length',
]);

/**
 * An HTTP proxy on 127.0.0.1 in front of `target` (an `http://127.0.0.1:…/prefix` base URL) that
 * injects transport faults by rule: lost replies after the server acted, gateway errors, outages
 * over a window of `clock` (default `Date.now`, inject a virtual one in tests). The first rule a
 * request hits decides.
 */
export async function startFaultProxy(options: {
  target: string;
  rules?: readonly FaultRule[];
  clock?: () => number;
}): Promise<FaultProxy> {
  const target = new URL(options.target);
  const clock = options.clock ?? Date.now;
  let rules: { rule: FaultRule; seen: number }[] = [];
  const setRules = (next: readonly FaultRule[]) => {
    rules = next.map((rule) => ({ rule, seen: 0 }));
  };
  setRules(options.rules ?? []);
  const log: {
    method: string;
    path: string;
    fault?: ProxyFault['kind'];
    startMs: number;
    endMs?: number;
  }[] = [];

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        sendJson(res, 502, errorEnvelope(502, `fault proxy: ${(error as Error).message}`));
      else res.destroy();
    });
  });

  function pick(method: string, path: string): ProxyFault | undefined {
    let chosen: ProxyFault | undefined;
    for (const entry of rules) {
      const { rule } = entry;
      if (rule.method !== undefined && rule.method !== method) continue;
      if (rule.path !== undefined && !rule.path.test(path)) continue;
      entry.seen += 1;
      if (chosen !== undefined) continue;
      if (rule.nth !== undefined && !rule.nth.includes(entry.seen)) continue;
      const now = clock();
      if (rule.during !== undefined && (now < rule.during.from || now >= rule.during.to)) continue;
      chosen = rule.fault;
    }
    return chosen;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const startMs = performance.now();
    const body = await readBody(req);
    const fault = pick(method, decodeURIComponent(url.pathname));
    const entry: (typeof log)[number] = {
      method,
      path: url.pathname,
      ...(fault === undefined ? {} : { fault: fault.kind }),
      startMs,
    };
    log.push(entry);
    res.on('finish', () => (entry.endMs = performance.now()));
    if (fault?.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.ms));
    if (fault?.kind === 'refuse') {
      if (fault.status === undefined) return void req.socket.destroy();
      return sendJson(
        res,
        fault.status,
        errorEnvelope(fault.status, 'The service is unavailable.'),
      );
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (!HOP_BY_HOP.has(name) && typeof value === 'string') headers[name] = value;
    const upstream = await fetch(`${target.origin}${url.pathname}${url.search}`, {
      method,
      headers,
      ...(body === '' || method === 'GET' ? {} : { body }),
    });
    const text = await upstream.text();
    if (fault?.kind === 'drop-reply') return void req.socket.destroy();
    if (fault?.kind === 'status-after')
      return sendJson(
        res,
        fault.status,
        errorEnvelope(fault.status, 'The service is unavailable.'),
      );
    const replyHeaders: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name) && name !== 'content-encoding') replyHeaders[name] = value;
    });
    res.writeHead(upstream.status, replyHeaders);
    res.end(text);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${target.pathname.replace(/\/$/, '')}`,
    log,
    setRules,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
