import { lookup } from 'node:dns/promises';
import {
  createServer,
  request,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { BlockList, connect, isIP, type Socket } from 'node:net';
import { join } from 'node:path';

/**
 * The only way out of an install's sandbox: an HTTP proxy of MAKER's on a Unix socket (shown inside
 * the sandbox, whose own network has nothing else), letting through only the configured
 * registries' origins — `CONNECT host:443` for HTTPS, absolute-form requests for plain HTTP — and
 * refusing everything else, saying so. A name that resolves to a loopback, private, link-local or
 * cloud-metadata address is refused (a public registry's name pointed at the person's network),
 * unless the person configured that address itself (a registry on `127.0.0.1`).
 */
export interface RegistryProxy {
  /** The socket's path on the host. */
  readonly socket: string;
  /** What it refused, one line each (`evil.example:443: not a configured registry`). */
  readonly refused: readonly string[];
  close(): Promise<void>;
}

export interface RegistryProxyOptions {
  /** The registries' origins (`https://registry.npmjs.org`, `http://127.0.0.1:4873`). */
  readonly origins: readonly string[];
  /** A private directory of MAKER's for the socket. */
  readonly dir: string;
  /** The person's own proxy (`HTTPS_PROXY`), which connections then go through. */
  readonly upstream?: string | undefined;
  /** Name resolution (default: the system's). */
  readonly resolve?: ((host: string) => Promise<string[]>) | undefined;
}

const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv6');

/** Whether `address` is loopback, private, link-local, multicast or otherwise not on the Internet. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped !== undefined) return PRIVATE.check(mapped, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Marks the proxy's own answers (a refusal), as opposed to a registry's. */
const OWN = { 'x-maker-proxy': 'refused' };

interface Allowed {
  /** `host:port` → whether the person named it by an address or `localhost` (then it may be private). */
  readonly targets: Map<string, boolean>;
}

function allowedTargets(origins: readonly string[]): Allowed {
  const targets = new Map<string, boolean>();
  for (const origin of origins) {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      continue;
    }
    const port = url.port === '' ? (url.protocol === 'http:' ? '80' : '443') : url.port;
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    targets.set(`${host}:${port}`, isIP(host) !== 0 || host === 'localhost');
  }
  return { targets };
}

/** Where a permitted connection goes: an address, and whether to reach it without the person's proxy. */
interface Target {
  readonly address: string;
  readonly direct: boolean;
}

/** What a running proxy decides with, and what it keeps: its refusals and its open sockets. */
interface Gate {
  /** `host:port` → whether the person named it by an address or `localhost` (see {@link Allowed}). */
  readonly targets: Map<string, boolean>;
  readonly resolve: (host: string) => Promise<string[]>;
  readonly upstream: URL | undefined;
  readonly refused: string[];
  readonly sockets: Set<Socket>;
}

/** Starts the proxy on `<dir>/proxy.sock`. */
export async function startRegistryProxy(options: RegistryProxyOptions): Promise<RegistryProxy> {
  const gate: Gate = {
    targets: allowedTargets(options.origins).targets,
    resolve: options.resolve ?? systemResolve,
    upstream: options.upstream === undefined ? undefined : new URL(options.upstream),
    refused: [],
    sockets: new Set<Socket>(),
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void proxyPlainHttp(gate, req, res);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    track(gate.sockets, client);
    client.on('error', () => client.destroy());
    void tunnel(gate, req, client, head);
  });
  server.on('connection', (socket: Socket) => track(gate.sockets, socket));

  const socket = join(options.dir, 'proxy.sock');
  await listen(server, socket);
  return { socket, refused: gate.refused, close: () => closeAll(server, gate.sockets) };
}

async function systemResolve(host: string): Promise<string[]> {
  return (await lookup(host, { all: true })).map((a) => a.address);
}

/** Where to connect for `host:port`, or why not. */
async function route(gate: Gate, host: string, port: string): Promise<Target | string> {
  const key = `${host.replace(/^\[|\]$/g, '').toLowerCase()}:${port}`;
  const literal = gate.targets.get(key);
  if (literal === undefined) return `${key}: not a configured registry`;
  const name = key.slice(0, key.lastIndexOf(':'));
  // An address the person named is reached directly, never through their own proxy.
  if (literal) return { address: name === 'localhost' ? '127.0.0.1' : name, direct: true };
  const addresses = await gate.resolve(name).catch(() => []);
  if (addresses.length === 0) return `${key}: its name does not resolve`;
  const inner = addresses.find(isPrivateAddress);
  if (inner !== undefined) return `${key}: resolves to ${inner}, a private address`;
  return { address: addresses[0] as string, direct: gate.upstream === undefined };
}

/** A socket to `host:port`, through the person's proxy when there is one. */
function open(
  upstream: URL | undefined,
  target: Target,
  host: string,
  port: number,
): Promise<Socket> {
  if (target.direct || upstream === undefined) return connectDirect(target.address, port);
  return connectThrough(upstream, host, port);
}

function connectDirect(address: string, port: number): Promise<Socket> {
  return new Promise((resolveSocket, reject) => {
    const socket = connect(port, address, () => resolveSocket(socket));
    socket.once('error', reject);
  });
}

/** A tunnel to `host:port` asked of the person's proxy by `CONNECT`, once it answers 200. */
function connectThrough(upstream: URL, host: string, port: number): Promise<Socket> {
  return new Promise((resolveSocket, reject) => {
    const socket = connect(Number(upstream.port || 80), upstream.hostname, () =>
      socket.write(`CONNECT ${host}:${port} HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`),
    );
    socket.once('error', reject);
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      if (!/^HTTP\/1\.[01] 200/.test(head)) reject(new Error(head.split('\r\n')[0]));
      else {
        const rest = Buffer.from(head.slice(end + 4), 'latin1');
        if (rest.length > 0) socket.unshift(rest);
        resolveSocket(socket);
      }
    };
    socket.on('data', onData);
  });
}

/** A plain-HTTP request (absolute form): refused, or forwarded to its registry. */
async function proxyPlainHttp(
  gate: Gate,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = plainHttpUrl(req.url);
  if (typeof url === 'string') {
    res.writeHead(400, OWN).end(url);
    return;
  }
  const port = url.port === '' ? '80' : url.port;
  const target = await route(gate, url.hostname, port);
  if (typeof target === 'string') {
    gate.refused.push(target);
    res.writeHead(403, OWN).end(`maker proxy: refused ${target}\n`);
    return;
  }
  const socket = await open(gate.upstream, target, url.hostname, Number(port)).catch(
    () => undefined,
  );
  if (socket === undefined) {
    res.writeHead(502, OWN).end('maker proxy: the registry could not be reached\n');
    return;
  }
  forward(req, res, url, socket);
}

/** The request's URL, or why the proxy will not take it. */
function plainHttpUrl(raw: string | undefined): URL | string {
  let url: URL;
  try {
    url = new URL(raw ?? '');
  } catch {
    return 'maker proxy: absolute URLs only\n';
  }
  if (url.protocol !== 'http:') return 'maker proxy: use CONNECT for https\n';
  return url;
}

/** Sends the request on `socket` (to the registry) and its answer back. */
function forward(req: IncomingMessage, res: ServerResponse, url: URL, socket: Socket): void {
  const forwarded = request(
    {
      createConnection: () => socket,
      path: `${url.pathname}${url.search}`,
      method: req.method,
      headers: registryHeaders(req, url),
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  forwarded.on('error', () => res.destroy());
  req.pipe(forwarded);
}

/** The client's headers for the registry: its host, one request per connection, none for a proxy. */
function registryHeaders(
  req: IncomingMessage,
  url: URL,
): Record<string, string | string[] | undefined> {
  const headers: Record<string, string | string[] | undefined> = {
    ...req.headers,
    host: url.host,
    connection: 'close',
  };
  delete headers['proxy-connection'];
  delete headers['proxy-authorization'];
  return headers;
}

/** A `CONNECT host:port`: refused, or joined to its registry byte for byte. */
async function tunnel(
  gate: Gate,
  req: IncomingMessage,
  client: Socket,
  head: Buffer,
): Promise<void> {
  const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? '');
  if (match === null) {
    client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    return;
  }
  const [, host = '', port = ''] = match;
  const target = await route(gate, host, port);
  if (typeof target === 'string') {
    gate.refused.push(target);
    client.end(`HTTP/1.1 403 Forbidden\r\n\r\nmaker proxy: refused ${target}\n`);
    return;
  }
  const remote = await open(gate.upstream, target, host, Number(port)).catch(() => undefined);
  if (remote === undefined) {
    client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    return;
  }
  splice(gate.sockets, client, remote, head);
}

/** Joins the client to the registry (after the bytes the client sent with its `CONNECT`). */
function splice(sockets: Set<Socket>, client: Socket, remote: Socket, head: Buffer): void {
  track(sockets, remote);
  remote.on('error', () => client.destroy());
  client.on('close', () => remote.destroy());
  client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  if (head.length > 0) remote.write(head);
  remote.pipe(client);
  client.pipe(remote);
}

/** Keeps `socket` in `sockets` while it is open, for {@link closeAll}. */
function track(sockets: Set<Socket>, socket: Socket): void {
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
}

function listen(server: Server, socket: string): Promise<void> {
  return new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(socket, () => resolveListen());
  });
}

/** Stops the proxy, ending every connection still open (a stuck install's included). */
function closeAll(server: Server, sockets: Set<Socket>): Promise<void> {
  return new Promise<void>((resolveClose) => {
    for (const s of sockets) s.destroy();
    server.close(() => resolveClose());
  });
}

/**
 * Run by Node.js inside an install's sandbox: listens on `127.0.0.1:<port>` (the sandbox's own
 * loopback), passes every connection to the proxy's socket, and runs the install (the rest of its
 * arguments) as its child, exiting with its status. Arguments: `<socket> <port> <program> [args…]`.
 */
export const FORWARDER = String.raw`
const net = require('net');
const { spawn } = require('child_process');
const [socket, port, program, ...args] = process.argv.slice(1);
const server = net.createServer((c) => {
  const u = net.connect(socket);
  c.pipe(u); u.pipe(c);
  c.on('error', () => u.destroy()); u.on('error', () => c.destroy());
});
server.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(program, args, { stdio: 'inherit' });
  child.on('error', (e) => { console.error('maker: ' + e.message); process.exit(127); });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
});
server.on('error', (e) => { console.error('maker: the proxy could not start: ' + e.message); process.exit(125); });
`;
