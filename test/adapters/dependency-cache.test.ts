import { readdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DependencyCache } from '../../src/adapters/deps/dependency-cache.js';
import { hostView } from '../../src/adapters/sandbox/host-view.js';
import { AbortedError } from '../../src/core/errors.js';
import { DEPENDENCY_FILES } from '../../src/core/dependencies.js';
import { startFakeNpmRegistry, type FakeNpmRegistry } from '../../src/offline/fake-npm-registry.js';
import { proxiedGet } from '../helpers/sandbox.js';
import { useTempDirs } from '../helpers/tmp.js';
import { machineSandbox } from '../helpers/settings.js';

const tempDir = useTempDirs();
const sandbox = await machineSandbox();

/** A tree with only a `requirements.txt` (its content as given), as the cache reads trees. */
const tree = (requirements: string) => ({
  readFiles: (_treeish: string, paths: readonly string[]) =>
    Promise.resolve(
      paths.map((path) => ({ path, content: path === 'requirements.txt' ? requirements : null })),
    ),
});

/** An install that tells the registry fake it started (`/started-<n>`), then never ends by itself. */
const hanging = (url: string, n: number) =>
  `${proxiedGet(`${url}started-${n}`)} && exec sleep 1000`;

describe.skipIf(sandbox === undefined)(
  'the dependency cache (skipped without bubblewrap: installs run only sandboxed)',
  () => {
    let registry: FakeNpmRegistry;
    beforeEach(async () => {
      registry = await startFakeNpmRegistry();
    });
    afterEach(async () => {
      await registry.close();
    });

    /** MAKER's environment: the registry fake is the configured registry. */
    const env = () => ({ PATH: process.env['PATH'], npm_config_registry: registry.url });

    const cacheIn = async (timeoutMs?: number) => {
      const root = join(await tempDir(), 'maker-deps');
      const cache = new DependencyCache({
        root,
        env: env(),
        view: () => hostView(process.env['PATH'] ?? '', homedir()),
        sandbox: () => Promise.resolve(sandbox),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      });
      return { root, cache };
    };

    it('stops an install past its time limit: the check fails saying so, and nothing is kept', async () => {
      const { root, cache } = await cacheIn(1000);
      const prepared = await cache.prepare(tree('a\n'), 't', hanging(registry.url, 1));
      expect(prepared.ok).toBe(false);
      if (!prepared.ok) {
        expect(prepared.output).toContain('timed out after 1 s');
        expect(prepared.output).toContain('Installing the dependencies with `node -e');
      }
      expect((await readdir(root)).filter((name) => !name.endsWith('.lock'))).toEqual([]);
    });

    it('kills an install the run cancels, keeps nothing of it, and starts it again for the next check', async () => {
      const { root, cache } = await cacheIn();
      const command = hanging(registry.url, 2);
      const first = new AbortController();
      const cancelled = cache.prepare(tree('b\n'), 't', command, first.signal);
      await registry.waitForRequest('/started-2');
      first.abort(new Error('run cancelled'));
      await expect(cancelled).rejects.toBeInstanceOf(AbortedError);
      expect((await readdir(root)).filter((name) => /^[0-9a-f]{24}$/.test(name))).toEqual([]);

      const second = new AbortController();
      const again = cache.prepare(tree('b\n'), 't', command, second.signal);
      await registry.waitForRequest('/started-2', 2);
      second.abort(new Error('run cancelled'));
      await expect(again).rejects.toBeInstanceOf(AbortedError);
    });

    it('a second cache on the same directory (another process) waits for the install under way and reuses it', async () => {
      const { root, cache } = await cacheIn();
      const other = new DependencyCache({
        root,
        env: env(),
        view: () => hostView(process.env['PATH'] ?? '', homedir()),
        sandbox: () => Promise.resolve(sandbox),
      });
      const release = registry.hold('/gate');
      const command = `${proxiedGet(`${registry.url}gate`)} && echo done > "$MAKER_DEPS/done.txt"`;
      const first = cache.prepare(tree('c\n'), 't', command);
      await registry.waitForRequest('/gate');
      const second = other.prepare(tree('c\n'), 't', command);
      release();
      expect((await first).ok).toBe(true);
      expect((await second).ok).toBe(true);
      expect(registry.requests.filter((r) => r.path === '/gate')).toHaveLength(1);
    });

    it('reads the dependency files at the root only, and keys on their content', async () => {
      const { root, cache } = await cacheIn();
      const read: string[][] = [];
      const files = (content: string) => ({
        readFiles: (treeish: string, paths: readonly string[]) => {
          read.push([...paths]);
          return tree(content).readFiles(treeish, paths);
        },
      });
      const install = 'cp requirements.txt "$MAKER_DEPS/seen.txt"';
      expect((await cache.prepare(files('one\n'), 't', install)).ok).toBe(true);
      expect((await cache.prepare(files('two\n'), 't', install)).ok).toBe(true);
      expect(read).toEqual([DEPENDENCY_FILES, DEPENDENCY_FILES]);
      expect((await readdir(root)).filter((name) => /^[0-9a-f]{24}$/.test(name))).toHaveLength(2);
    });
  },
);
