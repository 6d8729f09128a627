import { execFile } from 'node:child_process';
import { chown } from 'node:fs/promises';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { maker } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const execFileAsync = promisify(execFile);

// Only root can give a folder to another user; git then refuses it ("dubious ownership").
it.skipIf(process.getuid?.() !== 0)(
  'a repository git refuses as another user’s is named so, with the way forward, not "not a git repository"',
  async () => {
    const dir = await tempDir();
    await execFileAsync('git', ['init', '-q', '-b', 'main', dir]);
    await execFileAsync('chown', ['-R', '65534', dir]);
    for (const args of [
      ['run', 'a tool', '--dir', dir, '--worker', 'sim', '--no-checks', '--hitl', 'auto'],
      ['sandbox', 'true', '--dir', dir],
    ]) {
      const out = await maker(args);
      expect(out.code).toBe(1);
      expect(out.stderr).toContain('is a git repository owned by another user');
      expect(out.stderr).toContain(`git config --global --add safe.directory ${dir}`);
      expect(out.stderr).not.toMatch(/not a git repository/);
    }
    await chown(dir, 0, 0);
  },
);
