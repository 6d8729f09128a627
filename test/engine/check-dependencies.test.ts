import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GitWorkspace } from '../../src/adapters/git/git-workspace.js';
import { runCheck } from '../../src/engine/checks/checks.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import {
  packageLock,
  startFakeNpmRegistry,
  type FakeNpmRegistry,
} from '../../src/offline/fake-npm-registry.js';
import { startFakePypi } from '../../src/offline/fake-pypi.js';
import { useTempDirs } from '../helpers/tmp.js';
import { machineSandbox, workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
const sandbox = await machineSandbox();
const npm = await promisify(execFile)('npm', ['--version']).then(
  () => true,
  () => false,
);

/** A package whose main module says its version, and a test that imports it with `node --test`. */
const GREET = (version: string) => ({
  'index.js': `module.exports = () => 'tiny-greet ${version}';\n`,
});
const TEST = `const test = require('node:test');
const assert = require('node:assert');
const greet = require('tiny-greet');
test('greets', () => { console.log(greet()); assert.match(greet(), /^tiny-greet /); });
`;

// Install and checks need bubblewrap (the install's network is the host's: it reaches the
// registry fake on 127.0.0.1; checks have none) and npm.
describe.skipIf(sandbox === undefined || !npm)(
  'dependencies for checks (skipped without bubblewrap or npm: checks and installs run only sandboxed)',
  () => {
    let registry: FakeNpmRegistry;
    beforeEach(async () => {
      registry = await startFakeNpmRegistry();
    });
    afterEach(async () => {
      await registry.close();
    });

    /** A workspace whose installs take the registry fake (and a key they must not get) from its environment. */
    async function workspace(dir?: string): Promise<GitWorkspace> {
      return openWorkspace(
        dir ?? (await tempDir()),
        true,
        workspaceSettings({
          npm_config_registry: registry.url,
          GEMINI_API_KEY: 'AIzaSy-not-for-installs',
        }),
      );
    }

    async function nodeTree(ws: GitWorkspace, version: string, extra: Record<string, string> = {}) {
      const base = (await ws.resolve('main')) as string;
      const dep = registry.publish('tiny-greet', version, GREET(version));
      return ws.treeWithEdits(base, [
        {
          path: 'package.json',
          content: JSON.stringify({
            name: 'app',
            version: '1.0.0',
            dependencies: { 'tiny-greet': version },
          }),
        },
        { path: 'package-lock.json', content: packageLock('app', [dep]) },
        { path: 'test/greet.test.js', content: TEST },
        ...Object.entries(extra).map(([path, content]) => ({ path, content })),
      ]);
    }

    /** The check: the test passes, and the registry the install reached is out of the check's reach. */
    const checkCommand = () =>
      `node --test test/ && ! node -e "require('http').get('${registry.url}tiny-greet', () => process.exit(0)).on('error', () => process.exit(1))"`;

    const ctx = (ws: GitWorkspace, install?: string) => ({
      checks: ws,
      signal: new AbortController().signal,
      run: { config: install === undefined ? {} : { install } },
    });

    it('installs a lock file’s dependencies once, sandboxed, and every later check reuses them read-only', async () => {
      const dir = await tempDir();
      const ws = await workspace(dir);
      try {
        const tree = await nodeTree(ws, '1.0.0');
        const first = await runCheck(ctx(ws), tree, checkCommand());
        expect(first).toMatchObject({ ok: true });
        expect(first.output).toContain('tiny-greet 1.0.0');
        expect(registry.tarballFetches('tiny-greet')).toBe(1);

        // Another tree with the same lock file (a new source file, a new script): no second install.
        const other = await nodeTree(ws, '1.0.0', { 'src/more.js': 'module.exports = 1;\n' });
        const second = await runCheck(ctx(ws), other, `${checkCommand()} && test -f src/more.js`);
        expect(second.ok).toBe(true);
        // The installed modules are read-only to a check.
        const write = await runCheck(ctx(ws), tree, 'touch node_modules/tiny-greet/x');
        expect(write.ok).toBe(false);
        expect(write.output).toMatch(/Read-only file system/);
        expect(registry.tarballFetches('tiny-greet')).toBe(1);

        // A new process on the same repository finds the install on disk.
        const again = await workspace(dir);
        try {
          expect((await runCheck(ctx(again), tree, checkCommand())).ok).toBe(true);
        } finally {
          await again.close();
        }
        expect(registry.tarballFetches('tiny-greet')).toBe(1);
        expect(registry.requests.every((r) => r.kind === 'tarball')).toBe(true);
        // Nothing the install wrote reached the repository's work tree.
        expect(existsSync(join(dir, 'node_modules'))).toBe(false);
      } finally {
        await ws.close();
      }
    });

    it('installs again when a subtask changes the lock file', async () => {
      const dir = await tempDir();
      const ws = await workspace(dir);
      try {
        const v1 = await nodeTree(ws, '1.0.0');
        expect((await runCheck(ctx(ws), v1, checkCommand())).ok).toBe(true);
        const v2 = await nodeTree(ws, '1.1.0');
        const after = await runCheck(ctx(ws), v2, checkCommand());
        expect(after.ok).toBe(true);
        expect(after.output).toContain('tiny-greet 1.1.0');
        expect(registry.tarballFetches('tiny-greet', '1.0.0')).toBe(1);
        expect(registry.tarballFetches('tiny-greet', '1.1.0')).toBe(1);
        // Both installs stay cached, one directory per key.
        const cached = await readdir(join(await ws.gitDir(), 'maker-deps'));
        expect(cached.filter((name) => /^[0-9a-f]{24}$/.test(name))).toHaveLength(2);
        // Back to the first lock file: its install is reused.
        expect((await runCheck(ctx(ws), v1, checkCommand())).output).toContain('tiny-greet 1.0.0');
        expect(registry.tarballFetches('tiny-greet')).toBe(2);
      } finally {
        await ws.close();
      }
    });

    it('fails the checks that need a failed install, saying why, and does not retry it for the same files', async () => {
      const ws = await workspace();
      try {
        const base = (await ws.resolve('main')) as string;
        const published = registry.publish('tiny-greet', '1.0.0', GREET('1.0.0'));
        // The lock file names a version the registry does not have.
        const missing = {
          ...published,
          version: '9.9.9',
          tarball: published.tarball.replace('1.0.0', '9.9.9'),
        };
        const tree = await ws.treeWithEdits(base, [
          {
            path: 'package.json',
            content: JSON.stringify({
              name: 'app',
              version: '1.0.0',
              dependencies: { 'tiny-greet': '9.9.9' },
            }),
          },
          { path: 'package-lock.json', content: packageLock('app', [missing]) },
        ]);
        const first = await runCheck(ctx(ws), tree, 'echo the check ran');
        expect(first.ok).toBe(false);
        expect(first.output).toMatch(/404/);
        expect(first.output).toContain('Installing the dependencies with `npm ci --ignore-scripts');
        expect(first.output).not.toContain('the check ran');
        const fetches = registry.tarballFetches('tiny-greet');
        expect(fetches).toBeGreaterThan(0);
        const second = await runCheck(ctx(ws), tree, 'echo the check ran');
        expect(second).toEqual(first);
        expect(registry.tarballFetches('tiny-greet')).toBe(fetches);
        // Nothing half-installed is left to be taken for a finished install.
        const left = await readdir(join(await ws.gitDir(), 'maker-deps'));
        expect(left.filter((name) => /^[0-9a-f]{24}$/.test(name))).toEqual([]);
      } finally {
        await ws.close();
      }
    });

    it('installs nothing with --install none', async () => {
      const ws = await workspace();
      try {
        const tree = await nodeTree(ws, '1.0.0');
        const result = await runCheck(ctx(ws, ''), tree, 'node --test test/');
        expect(result.ok).toBe(false);
        expect(result.output).toContain('MODULE_NOT_FOUND');
        expect(registry.requests).toEqual([]);
      } finally {
        await ws.close();
      }
    });

    it('runs a chosen install with an environment MAKER built, writing only to its cache', async () => {
      const dir = await tempDir();
      const ws = await workspace(dir);
      try {
        const base = (await ws.resolve('main')) as string;
        const tree = await ws.treeWithEdits(base, [{ path: 'README', content: 'x\n' }]);
        const install = [
          'echo "key=[$GEMINI_API_KEY] registry=[$npm_config_registry] home=[$HOME]" > probe.txt',
          `(touch "${dir}/escaped" 2>/dev/null; touch "${process.cwd()}/escaped-install" 2>/dev/null; true)`,
        ].join(' && ');
        const result = await runCheck(ctx(ws, install), tree, 'cat probe.txt');
        expect(result.ok).toBe(true);
        expect(result.output).toContain('key=[]');
        expect(result.output).toContain(`registry=[${registry.url}]`);
        // The install's home is its own, inside its cache entry (shown at /deps in its sandbox).
        expect(result.output).toContain('home=[/deps/home]');
        expect(existsSync(join(dir, 'escaped'))).toBe(false);
        expect(existsSync(join(process.cwd(), 'escaped-install'))).toBe(false);
      } finally {
        await ws.close();
      }
    });
  },
);

const pip = await promisify(execFile)('python3', ['-m', 'pip', '--version']).then(
  () => true,
  () => false,
);

describe.skipIf(sandbox === undefined || !pip)(
  'Python dependencies for checks (skipped without bubblewrap or python3 with pip)',
  () => {
    it('installs requirements.txt once from the index in PIP_INDEX_URL, for unittest to import', async () => {
      const pypi = await startFakePypi();
      const ws = await openWorkspace(
        await tempDir(),
        true,
        workspaceSettings({ PIP_INDEX_URL: pypi.indexUrl }),
      );
      try {
        pypi.publish('tiny-hello', '1.0', {
          'tiny_hello/__init__.py': 'def hi():\n    return "hi from tiny_hello"\n',
        });
        const base = (await ws.resolve('main')) as string;
        const tree = await ws.treeWithEdits(base, [
          { path: 'requirements.txt', content: 'tiny-hello==1.0\n' },
          {
            path: 'test_hi.py',
            content:
              'import unittest\nimport tiny_hello\n\nclass T(unittest.TestCase):\n    def test_hi(self):\n        self.assertEqual(tiny_hello.hi(), "hi from tiny_hello")\n',
          },
        ]);
        const ctx = { checks: ws, signal: new AbortController().signal, run: { config: {} } };
        const first = await runCheck(ctx, tree, 'python3 -m unittest -v');
        expect(first.ok, first.output).toBe(true);
        expect(first.output).toContain('test_hi');
        expect((await runCheck(ctx, tree, 'python3 -m unittest')).ok).toBe(true);
        expect(pypi.wheelFetches('tiny-hello')).toBe(1);
      } finally {
        await ws.close();
        await pypi.close();
      }
    });
  },
);
