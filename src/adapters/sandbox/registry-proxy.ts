import { lookup } from 'node:dns/promises';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
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

/** Starts the proxy on `<dir>/proxy.sock`. */
// eslint-disable-next-line max-lines-per-function -- over 80 lines: to be split by job (#40)
export async function startRegistryProxy(options: RegistryProxyOptions): Promise<RegistryProxy> {
  const { targets } = allowedTargets(options.origins);
  const refused: string[] = [];
  const sockets = new Set<Socket>();
  const resolve =
    options.resolve ??
    (async (host: string) => (await lookup(host, { all: true })).map((a) => a.address));
  const upstream = options.upstream === undefined ? undefined : new URL(options.upstream);

  /** Where to connect for `host:port`, or why not. */
  const route = async (
    host: string,
    port: string,
  ): Promise<{ address: string; direct: boolean } | string> => {
    const key = `${host.replace(/^\[|\]$/g, '').toLowerCase()}:${port}`;
    const literal = targets.get(key);
    if (literal === undefined) return `${key}: not a configured registry`;
    const name = key.slice(0, key.lastIndexOf(':'));
    // An address the person named is reached directly, never through their own proxy.
    if (literal) return { address: name === 'localhost' ? '127.0.0.1' : name, direct: true };
    const addresses = await resolve(name).catch(() => []);
    if (addresses.length === 0) return `${key}: its name does not resolve`;
    const inner = addresses.find(isPrivateAddress);
    if (inner !== undefined) return `${key}: resolves to ${inner}, a private address`;
    return { address: addresses[0] as string, direct: upstream === undefined };
  };

  /** A socket to `host:port`, through the person's proxy when there is one. */
  const open = (
    target: { address: string; direct: boolean },
    host: string,
    port: number,
  ): Promise<Socket> =>
    new Promise((resolveSocket, reject) => {
      const { address } = target;
      if (target.direct || upstream === undefined) {
        const socket = connect(port, address, () => resolveSocket(socket));
        socket.once('error', reject);
        return;
      }
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

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      let url: URL;
      try {
        url = new URL(req.url ?? '');
      } catch {
        res.writeHead(400, OWN).end('maker proxy: absolute URLs only\n');
        return;
      }
      if (url.protocol !== 'http:') {
        res.writeHead(400, OWN).end('maker proxy: use CONNECT for https\n');
        return;
      }
      const port = url.port === '' ? '80' : url.port;
      const target = await route(url.hostname, port);
      if (typeof target === 'string') {
        refused.push(target);
        res.writeHead(403, OWN).end(`maker proxy: refused ${target}\n`);
        return;
      }
      const socket = await open(target, url.hostname, Number(port)).catch(() => undefined);
      if (socket === undefined) {
        res.writeHead(502, OWN).end('maker proxy: the registry could not be reached\n');
        return;
      }
      const headers: Record<string, string | string[] | undefined> = {
        ...req.headers,
        host: url.host,
        connection: 'close',
      };
      delete headers['proxy-connection'];
      delete headers['proxy-authorization'];
      const forward = request(
        {
          createConnection: () => socket,
          path: `${url.pathname}${url.search}`,
          method: req.method,
          headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      req.pipe(forward);
    })();
  });

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    void (async () => {
      const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? '');
      if (match === null) {
        client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
        return;
      }
      const [, host = '', port = ''] = match;
      const target = await route(host, port);
      if (typeof target === 'string') {
        refused.push(target);
        client.end(`HTTP/1.1 403 Forbidden\r\n\r\nmaker proxy: refused ${target}\n`);
        return;
      }
      const remote = await open(target, host, Number(port)).catch(() => undefined);
      if (remote === undefined) {
        client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
        return;
      }
      sockets.add(remote);
      remote.on('close', () => sockets.delete(remote));
      remote.on('error', () => client.destroy());
      client.on('close', () => remote.destroy());
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) remote.write(head);
      remote.pipe(client);
      client.pipe(remote);
    })();
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const socket = join(options.dir, 'proxy.sock');
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(socket, () => resolveListen());
  });
  return {
    socket,
    refused,
    close: () =>
      new Promise<void>((resolveClose) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolveClose());
      }),
  };
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
