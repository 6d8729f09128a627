import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/tmp.js';

const exec = promisify(execFile);
const tempDir = useTempDirs();

/**
 * The install the README documents, from the packed tarball: `npm install -g <tarball>` puts
 * `maker` on the PATH, and it works from any directory. The package's scripts are not run here
 * (dist/ is built by the test setup; building again would race other tests), and nothing is fetched:
 * the bundled CLI has no runtime dependencies.
 */
describe('installing the packed tarball globally', () => {
  it('puts a working `maker` on the PATH, outside the checkout', async () => {
    const packDir = await tempDir();
    const prefix = await tempDir();
    const elsewhere = await tempDir();
    const npmEnv = {
      ...process.env,
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
    };
    await exec('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', packDir], {
      env: npmEnv,
    });
    const [tarball] = await readdir(packDir);
    expect(tarball).toMatch(/^maker-gemini-cli-.*\.tgz$/);
    await exec(
      'npm',
      [
        'install',
        '--global',
        '--offline',
        '--ignore-scripts',
        '--prefix',
        prefix,
        join(packDir, tarball as string),
      ],
      { env: npmEnv },
    );
    const env = {
      PATH: `${join(prefix, 'bin')}:${process.env['PATH'] ?? ''}`,
      HOME: process.env['HOME'] ?? '',
    };
    const help = await exec('maker', ['--help'], { cwd: elsewhere, env });
    expect(help.stdout).toMatch(/^Usage: maker <command>/);
    // That the installed copy runs is tested here; its checks, by .ci/run's demo of the same install.
    const demo = await exec('maker', ['demo', '--dir', join(elsewhere, 'demo'), '--json'], {
      cwd: elsewhere,
      env: { ...env, MAKER_SANDBOX: 'none' },
    });
    expect(JSON.parse(demo.stdout)).toMatchObject({ status: 'done', simulated: true });
    // The installed package is the bundle and the extension's files: no node_modules.
    expect((await readdir(join(prefix, 'lib', 'node_modules', 'maker-gemini-cli'))).sort()).toEqual(
      ['GEMINI.md', 'README.md', 'commands', 'dist', 'gemini-extension.json', 'package.json'],
    );
  }, 120_000);
});
