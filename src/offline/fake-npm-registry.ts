import { createHash } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { OfflineError } from './errors.js';

/** A package version the fake serves: its tarball's address and the hashes npm checks it by. */
export interface FakePackage {
  readonly name: string;
  readonly version: string;
  readonly tarball: string;
  /** `sha512-…` (Subresource Integrity), as a lock file records it. */
  readonly integrity: string;
  readonly shasum: string;
}

/** A request the fake answered: its method, its path and what it was (a packument, a tarball, neither). */
export interface FakeNpmRequest {
  readonly method: string;
  readonly path: string;
  readonly kind: 'packument' | 'tarball' | 'other';
}

export interface FakeNpmRegistry {
  /** The registry's address, for `npm_config_registry` (ends with `/`). */
  readonly url: string;
  /** Every request, in order. */
  readonly requests: readonly FakeNpmRequest[];
  /** Publishes `name@version` with `files` (paths inside the package, `package.json` added when absent). */
  publish(name: string, version: string, files: Readonly<Record<string, string>>): FakePackage;
  /** Publishes `name@version` (scoped names too) as the gzipped tarball `bytes` (see `packDirectory`). */
  publishTarball(name: string, version: string, bytes: Buffer): FakePackage;
  /** Resolves once `count` requests (1 unless given; those already seen count) had path `path`. */
  waitForRequest(path: string, count?: number): Promise<void>;
  /**
   * Holds every request for `path` (answered 404) until the returned function is called: an
   * install that fetches it stays under way until then.
   */
  hold(path: string): () => void;
  /** How many times the tarball of `name@version` (any version when omitted) was fetched. */
  tarballFetches(name: string, version?: string): number;
  close(): Promise<void>;
}

/**
 * A tiny npm registry on 127.0.0.1 speaking the part of the wire protocol `npm install`/`npm ci`
 * use: packuments (`GET /<name>`) and tarballs (`GET /<name>/-/<name>-<version>.tgz`), built in
 * memory (gzipped ustar, entries under `package/`) or given whole. Scoped names (`@scope/name`) too.
 */
export async function startFakeNpmRegistry(): Promise<FakeNpmRegistry> {
  type Published = Map<string, { meta: FakePackage; bytes: Buffer }>;
  const packages = new Map<string, Published>();
  const requests: FakeNpmRequest[] = [];
  const waiters: { path: string; count: number; resolve: () => void }[] = [];
  const counted = (path: string) => requests.filter((r) => r.path === path).length;
  const seen = (request: FakeNpmRequest) => {
    requests.push(request);
    for (const w of waiters.splice(0))
      if (counted(w.path) >= w.count) w.resolve();
      else waiters.push(w);
  };
  const held = new Map<string, Promise<void>>();
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const gate = held.get(path);
    if (gate !== undefined) {
      seen({ method: req.method ?? 'GET', path, kind: 'other' });
      void gate.then(() => notFound(res));
      return;
    }
    const tarball = /^\/((?:@[^/]+\/)?([^/@][^/]*))\/-\/\2-(.+)\.tgz$/.exec(path);
    if (tarball !== null) {
      seen({ method: req.method ?? 'GET', path, kind: 'tarball' });
      const found = packages.get(tarball[1] as string)?.get(tarball[3] as string);
      if (found === undefined) return notFound(res);
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': found.bytes.length,
      });
      return res.end(found.bytes);
    }
    const versions = packages.get(path.slice(1));
    if (versions === undefined) {
      seen({ method: req.method ?? 'GET', path, kind: 'other' });
      return notFound(res);
    }
    seen({ method: req.method ?? 'GET', path, kind: 'packument' });
    const name = path.slice(1);
    const all = [...versions.values()].map((v) => v.meta);
    const body = JSON.stringify({
      name,
      'dist-tags': { latest: all.at(-1)?.version },
      versions: Object.fromEntries(
        all.map((m) => [
          m.version,
          {
            name,
            version: m.version,
            dist: { tarball: m.tarball, integrity: m.integrity, shasum: m.shasum },
          },
        ]),
      ),
    });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const registry: FakeNpmRegistry = {
    url,
    requests,
    publish(name, version, files) {
      const all = { 'package.json': JSON.stringify({ name, version }), ...files };
      const bytes = gzipSync(
        tar(Object.entries(all).map(([path, text]) => [`package/${path}`, Buffer.from(text)])),
      );
      return registry.publishTarball(name, version, bytes);
    },
    publishTarball(name, version, bytes) {
      const meta: FakePackage = {
        name,
        version,
        tarball: `${url}${name}/-/${name.replace(/^@[^/]+\//, '')}-${version}.tgz`,
        integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
        shasum: createHash('sha1').update(bytes).digest('hex'),
      };
      const versions: Published = packages.get(name) ?? (new Map() as Published);
      versions.set(version, { meta, bytes });
      packages.set(name, versions);
      return meta;
    },
    hold(path) {
      let release = () => undefined as void;
      held.set(
        path,
        new Promise<void>((resolve) => {
          release = resolve;
        }),
      );
      return () => {
        held.delete(path);
        release();
      };
    },
    waitForRequest: (path, count = 1) =>
      counted(path) >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ path, count, resolve })),
    tarballFetches: (name, version) =>
      requests.filter(
        (r) =>
          r.kind === 'tarball' &&
          r.path.startsWith(`/${name}/-/${name}-${version === undefined ? '' : `${version}.tgz`}`),
      ).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return registry;
}

/**
 * A `package-lock.json` (lockfile version 3) for a project `name` that depends on exactly
 * `dependencies`, each resolved to the fake's tarball: what `npm ci` installs from.
 */
export function packageLock(name: string, dependencies: readonly FakePackage[]): string {
  const wanted = Object.fromEntries(dependencies.map((d) => [d.name, d.version]));
  return `${JSON.stringify(
    {
      name,
      version: '1.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name, version: '1.0.0', dependencies: wanted },
        ...Object.fromEntries(
          dependencies.map((d) => [
            `node_modules/${d.name}`,
            { version: d.version, resolved: d.tarball, integrity: d.integrity },
          ]),
        ),
      },
    },
    null,
    2,
  )}\n`;
}

function notFound(res: ServerResponse): void {
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end('{"error":"Not found"}');
}

/**
 * A ustar archive of regular files (mode 644 unless given), ending with the two zero blocks; a path
 * over 100 bytes is split into ustar's prefix and name.
 */
export function tar(files: readonly (readonly [string, Buffer, number?])[]): Buffer {
  const blocks: Buffer[] = [];
  for (const [path, content, mode = 0o644] of files) {
    const header = Buffer.alloc(512);
    let name = path;
    let prefix = '';
    if (Buffer.byteLength(path) > 100) {
      const cut = path.lastIndexOf('/', 155);
      prefix = path.slice(0, cut);
      name = path.slice(cut + 1);
      if (cut < 0 || Buffer.byteLength(prefix) > 155 || Buffer.byteLength(name) > 100)
        throw new OfflineError(`path too long for a ustar archive: ${path}`);
    }
    header.write(name, 0, 100, 'utf8');
    header.write(`${(mode & 0o777).toString(8).padStart(7, '0')}\0`, 100, 'ascii');
    header.write('0000000\0', 108, 'ascii');
    header.write('0000000\0', 116, 'ascii');
    header.write(`${content.length.toString(8).padStart(11, '0')}\0`, 124, 'ascii');
    header.write('00000000000\0', 136, 'ascii');
    header.write('        ', 148, 'ascii');
    header.write('0', 156, 'ascii');
    header.write('ustar\0', 257, 'ascii');
    header.write('00', 263, 'ascii');
    header.write(prefix, 345, 155, 'utf8');
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
    blocks.push(header, content, Buffer.alloc((512 - (content.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}
