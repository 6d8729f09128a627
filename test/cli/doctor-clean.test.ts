import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { maker } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';
import { machineSandbox } from '../helpers/settings.js';

const tempDir = useTempDirs();
const execFileAsync = promisify(execFile);
const sandbox = await machineSandbox();

describe.skipIf(sandbox === undefined)('maker sandbox and maker doctor --clean-deps', () => {
  it('runs a command as a check, installing first; the cache is then removed on request', async () => {
    const dir = await tempDir();
    const git = (...args: string[]) => execFileAsync('git', ['-C', dir, ...args]);
    await git('init', '-q', '-b', 'main');
    await writeFile(join(dir, 'requirements.txt'), 'pkg==1.0\n');
    await git('add', '.');
    await git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'x');
    const ran = await maker([
      'sandbox',
      'cat "$MAKER_DEPS/made"; pwd; ls',
      '--dir',
      dir,
      '--install',
      'echo installed > "$MAKER_DEPS/made"',
    ]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toBe('installed\n/checkout\nrequirements.txt\n');
    expect(existsSync(join(dir, '.git', 'maker-deps'))).toBe(true);
    const failed = await maker(['sandbox', 'exit 3', '--dir', dir, '--install', 'none']);
    expect(failed.code).toBe(1);

    const cleaned = await maker(['doctor', '--clean-deps', '--dir', dir]);
    expect(cleaned.code, cleaned.stderr).toBe(0);
    expect(cleaned.stdout).toMatch(/^Removed the dependency cache of .*: 1 entry, /);
    expect(existsSync(join(dir, '.git', 'maker-deps'))).toBe(false);
    const again = await maker(['doctor', '--clean-deps', '--dir', dir]);
    expect(again.stdout).toMatch(/^No dependency cache in /);
    const nowhere = await maker(['doctor', '--clean-deps', '--dir', await tempDir()]);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toMatch(/is not a git repository/);
  });
});
