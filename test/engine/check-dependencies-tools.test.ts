import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultInstall } from '../../src/core/dependencies.js';
import { runCheck } from '../../src/engine/checks/checks.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { startFakeNpmRegistry, type FakeNpmRegistry } from '../../src/offline/fake-npm-registry.js';
import { useTempDirs } from '../helpers/tmp.js';
import { machineSandbox, workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
const execFileAsync = promisify(execFile);
const sandbox = await machineSandbox();
const has = (tool: string) =>
  execFileAsync(tool, ['--version']).then(
    () => true,
    () => false,
  );

const TEST = `const test = require('node:test');
const assert = require('node:assert');
const greet = require('tiny-greet');
test('greets', () => { console.log(greet()); assert.equal(greet(), 'tiny-greet 1.0.0'); });
`;

/**
 * The default installs of package managers this project does not depend on, run for real where the
 * tool is on the PATH (skipped, saying so, where it is not): the lock file is made by the tool
 * itself against the npm registry fake, then MAKER installs from it with its default command, in
 * the sandbox, and the check runs offline.
 */
const TOOLS = [
  {
    tool: 'pnpm',
    lockFile: 'pnpm-lock.yaml',
    lock: (dir: string, url: string) =>
      execFileAsync(
        'pnpm',
        ['install', '--lockfile-only', '--registry', url, '--store-dir', join(dir, '.store')],
        { cwd: dir, env: { ...process.env, HOME: dir } },
      ),
  },
  {
    tool: 'yarn',
    lockFile: 'yarn.lock',
    lock: (dir: string, url: string) =>
      execFileAsync(
        'yarn',
        ['install', '--ignore-scripts', '--non-interactive', '--registry', url],
        { cwd: dir, env: { ...process.env, HOME: dir, YARN_CACHE_FOLDER: join(dir, '.cache') } },
      ),
  },
] as const;

for (const { tool, lockFile, lock } of TOOLS) {
  const present = await has(tool);
  describe.skipIf(sandbox === undefined || !present)(
    `the default install for ${lockFile} (skipped without a sandbox or ${tool} on the PATH${present ? '' : `: ${tool} is not installed here`})`,
    () => {
      let registry: FakeNpmRegistry;
      beforeEach(async () => {
        registry = await startFakeNpmRegistry();
      });
      afterEach(async () => {
        await registry.close();
      });

      it(`installs once with \`${defaultInstall(new Set([lockFile])) ?? ''}\`, and checks pass offline`, async () => {
        registry.publish('tiny-greet', '1.0.0', {
          'index.js': "module.exports = () => 'tiny-greet 1.0.0';\n",
        });
        const manifest = JSON.stringify({
          name: 'app',
          version: '1.0.0',
          dependencies: { 'tiny-greet': '1.0.0' },
        });
        const made = await tempDir();
        await writeFile(join(made, 'package.json'), manifest);
        await lock(made, registry.url);
        const lockText = await readFile(join(made, lockFile), 'utf8');
        const setup = registry.tarballFetches('tiny-greet');

        // The host's PATH, as MAKER has it: the sandbox shows the toolchains found on it.
        const ws = await openWorkspace(
          await tempDir(),
          true,
          workspaceSettings({
            ...process.env,
            npm_config_registry: registry.url,
            YARN_REGISTRY: registry.url,
          }),
        );
        try {
          const base = (await ws.resolve('main')) as string;
          const tree = await ws.treeWithEdits(base, [
            { path: 'package.json', content: manifest },
            { path: lockFile, content: lockText },
            { path: 'test/greet.test.js', content: TEST },
          ]);
          const ctx = { checks: ws, signal: new AbortController().signal, run: { config: {} } };
          const check = `node --test test/ && ! node -e "require('http').get('${registry.url}tiny-greet', () => process.exit(0)).on('error', () => process.exit(1))"`;
          const first = await runCheck(ctx, tree, check);
          expect(first.output).toContain('tiny-greet 1.0.0');
          expect(first.ok).toBe(true);
          expect(registry.tarballFetches('tiny-greet')).toBe(setup + 1);
          const other = await ws.treeWithEdits(tree, [{ path: 'src/more.js', content: '1;\n' }]);
          expect((await runCheck(ctx, other, check)).ok).toBe(true);
          expect(registry.tarballFetches('tiny-greet')).toBe(setup + 1);
        } finally {
          await ws.close();
        }
      });
    },
  );
}
