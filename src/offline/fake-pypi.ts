import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakePypi {
  /** The simple index's address, for `PIP_INDEX_URL` (ends with `/simple/`). */
  readonly indexUrl: string;
  /** Every request's path, in order. */
  readonly requests: readonly string[];
  /** Publishes a pure-Python wheel of `name==version` holding `files` (paths inside site-packages). */
  publish(name: string, version: string, files: Readonly<Record<string, string>>): void;
  /** How many times a wheel of `name` was downloaded. */
  wheelFetches(name: string): number;
  close(): Promise<void>;
}

/**
 * A tiny Python package index on 127.0.0.1 speaking the simple repository API (PEP 503) that
 * `pip install` uses: `GET /simple/<name>/` lists the wheels (with their sha256), `GET
 * /files/<wheel>` serves one, built in memory (an uncompressed zip with its dist-info). Names are
 * normalised as pip does (lower case, runs of `-_.` as `-`).
 */
export async function startFakePypi(): Promise<FakePypi> {
  const wheels = new Map<string, Map<string, Buffer>>();
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push(path);
    const listing = /^\/simple\/([^/]+)\/?$/.exec(path);
    const files = listing === null ? undefined : wheels.get(normalise(listing[1] as string));
    if (files !== undefined) {
      const links = [...files].map(
        ([file, bytes]) =>
          `<a href="/files/${file}#sha256=${createHash('sha256').update(bytes).digest('hex')}">${file}</a>`,
      );
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end(`<!DOCTYPE html><html><body>\n${links.join('<br/>\n')}\n</body></html>\n`);
    }
    const file = /^\/files\/(([^-/]+)-[^/]+\.whl)$/.exec(path);
    const bytes =
      file === null ? undefined : wheels.get(normalise(file[2] as string))?.get(file[1] as string);
    if (bytes !== undefined) {
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': bytes.length,
      });
      return res.end(bytes);
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    indexUrl: `${base}/simple/`,
    requests,
    publish(name, version, files) {
      const dist = `${name.replace(/[-.]+/g, '_')}-${version}`;
      const entries: [string, string][] = [
        ...Object.entries(files),
        [
          `${dist}.dist-info/METADATA`,
          `Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\n`,
        ],
        [
          `${dist}.dist-info/WHEEL`,
          'Wheel-Version: 1.0\nGenerator: maker-fake-pypi\nRoot-Is-Purelib: true\nTag: py3-none-any\n',
        ],
      ];
      const record = entries.map(([path, text]) => {
        const digest = createHash('sha256').update(text).digest('base64url');
        return `${path},sha256=${digest},${Buffer.byteLength(text)}`;
      });
      entries.push([
        `${dist}.dist-info/RECORD`,
        `${[...record, `${dist}.dist-info/RECORD,,`].join('\n')}\n`,
      ]);
      const found = wheels.get(normalise(name)) ?? new Map<string, Buffer>();
      found.set(`${dist}-py3-none-any.whl`, zip(entries));
      wheels.set(normalise(name), found);
    },
    wheelFetches: (name) =>
      requests.filter((p) => p.startsWith(`/files/${name.replace(/[-.]+/g, '_')}-`)).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function normalise(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/** A zip archive of `entries`, stored (no compression), dated 1980-01-01. */
function zip(entries: readonly (readonly [string, string])[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [path, text] of entries) {
    const name = Buffer.from(path);
    const data = Buffer.from(text);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (const byte of data) c = (CRC_TABLE[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
