import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FaultList, faultReply, type FakeGitHubFault } from './fake-github-faults.js';
import { serveGitHttp } from './fake-github-http-backend.js';
import { controlRoute, foreignCommit, introspect } from './fake-github-control.js';
import { PAGE_HEADERS, webPage } from './fake-github-pages.js';
import { pullRoutes } from './fake-github-pulls.js';
import { repoRoutes } from './fake-github-repos.js';
import { syncPulls, type RouteContext } from './fake-github-route.js';
import { fakeGitHubStore, restoreWorld, snapshotWorld } from './fake-github-store.js';
import { FakeGitHubWorld, type FakeGitHubToken, type Principal } from './fake-github-world.js';
import { errorReply, send, type Reply } from './github-http.js';
import { readBody } from './google-http.js';

export type { FakeGitHubFault } from './fake-github-faults.js';
export type { FakeGitHubToken, FakePermission, FakeAccess } from './fake-github-world.js';
export type { FakeGitHubState } from './fake-github-control.js';

export interface FakeGitHubOptions {
  readonly tokens: readonly FakeGitHubToken[];
  /** Organisations and their members (logins). */
  readonly organizations?: readonly { login: string; members: readonly string[] }[];
  /** Where the bare repositories live (default: a temporary directory, removed on close). */
  readonly root?: string;
  readonly port?: number;
  /** The primary rate limit per token and hour (default 5000). */
  readonly rateLimit?: number;
  readonly now?: () => Date;
  /**
   * A JSON file the fake keeps its world in (see `fake-github-store.ts`): loaded at start when it
   * exists, rewritten before every answer to a request that may change something. With `root`, a
   * fake restarted on the same store and root has every repository, pull request and comment.
   */
  readonly store?: string;
  /**
   * Kill campaigns only: called with each request's number (1 for the first since the fake started
   * or its requests were last cleared, control routes not counted) when it arrives (`received`) and once it was carried out, before its answer is
   * sent for a REST request, after it for git (`handled`). `drop` on arrival: not carried out, no answer.
   */
  readonly onRequest?: (n: number, phase: 'received' | 'handled') => void | 'drop';
}

/** One request the fake answered. Never a header: tokens stay out of the log. */
export interface FakeGitHubRequest {
  readonly kind: 'api' | 'git';
  readonly method: string;
  readonly path: string;
  readonly status: number;
}

export interface FakeGitHub {
  /** The REST API's base URL (also the origin of clone and web URLs). */
  readonly baseUrl: string;
  readonly root: string;
  gitUrl(owner: string, repo: string): string;
  readonly requests: readonly FakeGitHubRequest[];
  /** Forgets the requests answered so far; the next is number 1 again (see `onRequest`). */
  clearRequests(): void;
  addFault(fault: FakeGitHubFault): void;
  clearFaults(): void;
  addToken(token: FakeGitHubToken): void;
  /** The knob "bad token": GitHub stops accepting it (401). */
  revokeToken(token: string): void;
  /** Someone else commits on `branch` (default: the default branch): the commit's sha. */
  foreignCommit(target: { owner: string; repo: string; branch?: string }): Promise<string>;
  /** Repositories, their branches, pull requests and comments, as the fake holds them. */
  state(): ReturnType<typeof introspect>;
  close(): Promise<void>;
}

/**
 * A local GitHub on 127.0.0.1: the REST routes MAKER uses with GitHub's shapes, statuses, error
 * bodies and rate-limit headers, and git's smart HTTP protocol for the same bare repositories
 * through `git http-backend`, behind token checks. Faults are set with {@link FakeGitHub.addFault}
 * or, for a fake in another process, through `/_fake/…` control routes.
 */
export async function startFakeGitHub(options: FakeGitHubOptions): Promise<FakeGitHub> {
  const ownsRoot = options.root === undefined;
  const root = options.root ?? (await mkdtemp(join(tmpdir(), 'fake-github-')));
  const store = options.store === undefined ? undefined : fakeGitHubStore(options.store);
  const stored = store?.load();
  const world = new FakeGitHubWorld({
    root,
    now: options.now ?? (() => new Date()),
    tokens: options.tokens,
    organizations: options.organizations ?? [],
    counters: stored,
  });
  if (stored !== undefined) restoreWorld(world, stored);
  /** Writes the world to the store (when there is one): called before a change is answered. */
  const persist = () => store?.save(snapshotWorld(world));
  const faults = new FaultList();
  const requests: FakeGitHubRequest[] = [];
  let seen = 0;
  const used = new Map<string, number>();
  const limit = options.rateLimit ?? 5000;
  const resetAt = Math.floor(world.now().getTime() / 1000) + 3600;
  const routes = [...repoRoutes, ...pullRoutes];
  let base = '';

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        send(res, errorReply(500, `fake github: ${(error as Error).message}`), {});
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const path = url.pathname;
    if (path.startsWith('/_fake/')) {
      const body = await readBody(req);
      const reply = await controlRoute(fake, method, path, body);
      if (method !== 'GET') persist();
      return send(res, reply, {});
    }
    // A browser opening a printed link: the repository's or pull request's page (not counted).
    const web = await webPage(world, base, method, path, req.headers.accept);
    if (web !== undefined) return void res.writeHead(web.status, PAGE_HEADERS).end(web.html);
    const n = (seen += 1);
    // `drop`: the request is never carried out, and never answered.
    if (options.onRequest?.(n, 'received') === 'drop') return void res.socket?.destroy();
    const logged = sanitize(url);
    const gitPath = /^\/([^/]+)\/([^/]+?)\.git(\/.*)$/.exec(path);
    if (gitPath !== null) {
      const status = await handleGit(req, res, gitPath, url);
      requests.push({ kind: 'git', method, path: logged, status });
      options.onRequest?.(n, 'handled');
      return;
    }
    const text = await readBody(req);
    const who = world.authenticate(tokenOf(req));
    const key = who === undefined || who === 'bad' ? 'anonymous' : who.login;
    const count = (used.get(key) ?? 0) + 1;
    used.set(key, count);
    const rate = {
      'x-ratelimit-limit': String(key === 'anonymous' ? 60 : limit),
      'x-ratelimit-remaining': String(Math.max(0, (key === 'anonymous' ? 60 : limit) - count)),
      'x-ratelimit-reset': String(resetAt),
      'x-ratelimit-used': String(count),
      'x-ratelimit-resource': 'core',
      'x-github-api-version-selected': '2022-11-28',
    };
    const fault = who === 'bad' ? undefined : faults.take(method, path);
    const nowSeconds = Math.floor(world.now().getTime() / 1000);
    let reply: Reply | undefined;
    if (who === 'bad') reply = errorReply(401, 'Bad credentials');
    else if (
      fault !== undefined &&
      (fault.kind !== 'status' || fault.when !== 'after') &&
      fault.kind !== 'lost-reply'
    )
      reply = faultReply(fault, nowSeconds);
    else reply = await route(method, url, text, who);
    if (method !== 'GET' && method !== 'HEAD') persist();
    options.onRequest?.(n, 'handled');
    if (fault?.kind === 'lost-reply') {
      requests.push({ kind: 'api', method, path: logged, status: 0 });
      res.socket?.destroy();
      return;
    }
    if (fault?.kind === 'status' && fault.when === 'after') reply = faultReply(fault, nowSeconds);
    const answer = reply ?? errorReply(500, 'fake github: no answer');
    requests.push({ kind: 'api', method, path: logged, status: answer.status });
    send(res, answer, { ...rate, ...(answer.headers ?? {}) });
  }

  async function route(
    method: string,
    url: URL,
    text: string,
    principal: Principal | undefined,
  ): Promise<Reply> {
    let body: Record<string, unknown> = {};
    if (text !== '') {
      try {
        const parsed: unknown = JSON.parse(text);
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
          return errorReply(400, 'Problems parsing JSON');
        body = parsed as Record<string, unknown>;
      } catch {
        return errorReply(400, 'Problems parsing JSON');
      }
    }
    const path = url.pathname.replace(/\/+$/, '') || '/';
    for (const r of routes) {
      if (r.method !== method) continue;
      const match = r.pattern.exec(path);
      if (match === null) continue;
      const ctx: RouteContext = {
        world,
        base,
        principal,
        params: match.slice(1).map((p) => decodeURIComponent(p)),
        query: url.searchParams,
        body,
        url: `${base}${url.pathname}`,
      };
      return r.handle(ctx);
    }
    return errorReply(404, 'Not Found');
  }

  async function handleGit(
    req: IncomingMessage,
    res: ServerResponse,
    match: RegExpExecArray,
    url: URL,
  ): Promise<number> {
    const deny = (status: number, text: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'text/plain', ...headers });
      res.end(`${text}\n`);
      return status;
    };
    const repo = world.repo(match[1] as string, match[2] as string);
    if (repo === undefined) return deny(404, 'Repository not found.');
    const rest = match[3] as string;
    const service = url.searchParams.get('service') ?? rest.slice(rest.lastIndexOf('/') + 1);
    const write = service === 'git-receive-pack';
    const token = tokenOf(req);
    const who = world.authenticate(token);
    const challenge = { 'www-authenticate': 'Basic realm="GitHub"' };
    if (who === 'bad') return deny(401, 'Invalid username or token.', challenge);
    if (who === undefined && (write || repo.private))
      return deny(401, 'Authentication required.', challenge);
    if (world.deny(who, repo, 'contents', write ? 'write' : 'read') !== undefined)
      return world.canSee(who, repo)
        ? deny(
            403,
            `Permission to ${repo.owner}/${repo.name}.git denied to ${who?.login ?? 'anonymous'}.`,
          )
        : deny(404, 'Repository not found.');
    const status = await serveGitHttp(req, res, {
      projectRoot: root,
      pathInfo: `/${repo.owner.toLowerCase()}/${repo.name.toLowerCase()}.git${rest}`,
      query: url.search.replace(/^\?/, ''),
      remoteUser: who?.login ?? 'anonymous',
      ...(write && req.method === 'POST'
        ? {
            beforeEnd: async () => {
              await syncPulls(world, repo, who?.login);
              persist();
            },
          }
        : {}),
    });
    return status;
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  }).catch(async (error: unknown) => {
    // Not started (a port taken): the directory made for it goes too.
    if (ownsRoot) await rm(root, { recursive: true, force: true });
    throw error;
  });
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;

  const fake: FakeGitHub = {
    baseUrl: base,
    root,
    gitUrl: (owner, repo) => `${base}/${owner}/${repo}.git`,
    requests,
    clearRequests: () => {
      requests.splice(0);
      seen = 0;
    },
    addFault: (fault) => faults.add(fault),
    clearFaults: () => faults.clear(),
    addToken: (token) => world.addToken(token),
    revokeToken: (token) => world.revokeToken(token),
    foreignCommit: (target) => foreignCommit(world, target),
    state: () => introspect(world),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
      if (ownsRoot) await rm(root, { recursive: true, force: true });
    },
  };
  return fake;
}

/** The token of a request: `Authorization: token …`, `Bearer …`, or Basic with the token as password. */
function tokenOf(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return undefined;
  const [scheme, value] = header.split(/\s+/, 2);
  if (value === undefined) return undefined;
  if (/^(token|bearer)$/i.test(scheme ?? '')) return value;
  if (/^basic$/i.test(scheme ?? '')) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    return decoded.slice(decoded.indexOf(':') + 1);
  }
  return undefined;
}

/** The path and query as logged: never a credential, even one passed as a query parameter. */
function sanitize(url: URL): string {
  const query = new URLSearchParams(url.searchParams);
  query.delete('access_token');
  const q = query.toString();
  return q === '' ? url.pathname : `${url.pathname}?${q}`;
}
