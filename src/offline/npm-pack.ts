import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { tar, type FakeNpmRegistry, type FakePackage } from './fake-npm-registry.js';
import { OfflineError } from './errors.js';

/** A `packages` entry of a lock file (lockfile version 2 or 3), as far as packing reads it. */
interface LockEntry {
  readonly version?: string;
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  readonly [key: string]: unknown;
}

/**
 * The gzipped tarball of an installed package directory, as `npm pack` lays it out (every file
 * under `package/`, modes kept so executables stay executable), its own `node_modules` left out.
 */
export async function packDirectory(dir: string): Promise<Buffer> {
  const files: [string, Buffer, number][] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(join(dir, rel), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (path === 'node_modules') continue;
      const full = join(dir, path);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile())
        files.push([`package/${path}`, await readFile(full), (await stat(full)).mode]);
    }
  };
  await walk('');
  return gzipSync(tar(files), { level: 1 });
}

/** Where Node would find `name` from the lock entry at `from` (its own node_modules, then up). */
function resolveIn(
  packages: Readonly<Record<string, LockEntry>>,
  from: string,
  name: string,
): string | undefined {
  let base = from;
  for (;;) {
    const key = `${base === '' ? '' : `${base}/`}node_modules/${name}`;
    if (packages[key] !== undefined) return key;
    if (base === '') return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

/**
 * Publishes to `registry` the package at `entry` (a lock key, `node_modules/vitest`) of the project
 * at `project` and everything it needs, packed from what is installed there (dependencies, required
 * peers, and the optional ones installed on this machine: the platform's native builds), and
 * returns the lock file `packages` entries for them, each resolved to the fake with its tarball's
 * integrity (and those of the optional ones for other platforms, unpublished): with a root entry,
 * a lock file `npm ci` installs from the fake alone.
 */
export async function publishInstalled(
  registry: FakeNpmRegistry,
  project: string,
  entry: string,
): Promise<{ version: string; packages: Record<string, LockEntry>; published: FakePackage[] }> {
  const lock = JSON.parse(await readFile(join(project, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const closure = new Map<string, LockEntry>();
  // Optional ones for other platforms are not installed here: the lock file names them still
  // (`npm ci` wants them, and skips them by their os and cpu), resolved to the fake, which has
  // none of them, so fetching one would fail rather than reach another registry.
  const elsewhere = new Map<string, LockEntry>();
  const visit = (key: string) => {
    const found = lock.packages[key];
    if (closure.has(key) || elsewhere.has(key) || found === undefined) return;
    (existsSync(join(project, key)) ? closure : elsewhere).set(key, found);
    const peers = Object.keys(found.peerDependencies ?? {}).filter(
      (n) => found.peerDependenciesMeta?.[n]?.optional !== true,
    );
    for (const name of [
      ...Object.keys(found.dependencies ?? {}),
      ...Object.keys(found.optionalDependencies ?? {}),
      ...peers,
    ]) {
      const to = resolveIn(lock.packages, key, name);
      if (to !== undefined) visit(to);
    }
  };
  visit(entry);
  const packages: Record<string, LockEntry> = {};
  const published: FakePackage[] = [];
  for (const [key, found] of closure) {
    const dir = join(project, key);
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
    };
    const meta = registry.publishTarball(manifest.name, manifest.version, await packDirectory(dir));
    published.push(meta);
    packages[key] = { ...found, resolved: meta.tarball, integrity: meta.integrity };
  }
  for (const [key, found] of elsewhere) {
    const name = key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const file = `${name.replace(/^@[^/]+\//, '')}-${found.version ?? '0.0.0'}.tgz`;
    packages[key] = { ...found, resolved: `${registry.url}${name}/-/${file}` };
  }
  const root = closure.get(entry);
  if (root?.version === undefined)
    throw new OfflineError(`${entry} is not installed in ${project}`);
  return { version: root.version, packages, published };
}
