import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GitWorkspace } from '../../src/adapters/git/git-workspace.js';
import { runCheck } from '../../src/engine/checks/checks.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { startFakeNpmRegistry, type FakeNpmRegistry } from '../../src/offline/fake-npm-registry.js';
import { publishInstalled } from '../../src/offline/npm-pack.js';
import { useTempDirs } from '../helpers/tmp.js';
import { machineSandbox, workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
const sandbox = await machineSandbox();
const npm = await promisify(execFile)('npm', ['--version']).then(
  () => true,
  () => false,
);
// Packing vitest's 40-odd packages (about 40 MB) and installing them takes a while: run where
// end-to-end tests run (CI sets MAKER_E2E=1); there a missing sandbox or npm is a failure.
const e2e = process.env['MAKER_E2E'] === '1';
if (e2e && (sandbox === undefined || !npm))
  throw new Error('MAKER_E2E=1 requires a sandbox (bubblewrap or unshare) and npm for this test');

const SUM = 'export const sum = (a, b) => a + b;\n';
const TEST = `import { expect, test } from 'vitest';
import { sum } from '../src/sum.js';
test('adds', () => { expect(sum(2, 3)).toBe(5); });
`;

describe.skipIf(!e2e || sandbox === undefined || !npm)(
  'a Node repository tested with vitest (skipped unless MAKER_E2E=1: it installs vitest from a local registry)',
  () => {
    let registry: FakeNpmRegistry;
    beforeEach(async () => {
      registry = await startFakeNpmRegistry();
    });
    afterEach(async () => {
      await registry.close();
    });

    it('installs its lock file once from a registry on 127.0.0.1, then `npx vitest run` passes offline, twice, with no second install', async () => {
      // The registry serves vitest and everything it needs, packed from this project's own
      // node_modules (the platform's native rollup and esbuild builds included), and the test
      // repository's lock file is made against it.
      const { version, packages, published } = await publishInstalled(
        registry,
        process.cwd(),
        'node_modules/vitest',
      );
      expect(published.map((p) => p.name)).toEqual(
        expect.arrayContaining(['vitest', 'vite', '@vitest/runner']),
      );
      const lock = {
        name: 'app',
        version: '1.0.0',
        lockfileVersion: 3,
        requires: true,
        packages: {
          '': { name: 'app', version: '1.0.0', devDependencies: { vitest: version } },
          ...packages,
        },
      };
      const ws: GitWorkspace = await openWorkspace(
        await tempDir(),
        true,
        workspaceSettings({
          npm_config_registry: registry.url,
        }),
      );
      try {
        const base = (await ws.resolve('main')) as string;
        const files = {
          'package.json': JSON.stringify({
            name: 'app',
            version: '1.0.0',
            type: 'module',
            devDependencies: { vitest: version },
          }),
          'package-lock.json': `${JSON.stringify(lock, null, 2)}\n`,
          'src/sum.js': SUM,
          'test/sum.test.js': TEST,
        };
        const tree = await ws.treeWithEdits(
          base,
          Object.entries(files).map(([path, content]) => ({ path, content })),
        );
        const ctx = { checks: ws, signal: new AbortController().signal, run: { config: {} } };
        // The check: vitest passes, and the registry the install reached is out of its reach.
        const check = `npx vitest run && ! node -e "require('http').get('${registry.url}vitest', () => process.exit(0)).on('error', () => process.exit(1))"`;
        const first = await runCheck(ctx, tree, check);
        expect(first.output).toMatch(/1 passed/);
        expect(first.ok).toBe(true);
        // One fetch per package, tarballs only (npm ci reads the lock file, not the packuments).
        const fetched = registry.requests.length;
        expect(fetched).toBe(published.length);
        expect(registry.requests.every((r) => r.kind === 'tarball')).toBe(true);

        // Another tree with the same lock file: the check reuses the install.
        const more = await ws.treeWithEdits(tree, [
          { path: 'test/more.test.js', content: TEST.replace("'adds'", "'adds again'") },
        ]);
        const second = await runCheck(ctx, more, check);
        expect(second.output).toMatch(/2 passed/);
        expect(second.ok).toBe(true);
        expect(registry.requests).toHaveLength(fetched);
      } finally {
        await ws.close();
      }
    }, 300_000);
  },
);
