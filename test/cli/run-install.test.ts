import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { maker, simRun } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';
import { machineSandbox } from '../helpers/settings.js';

const tempDir = useTempDirs();
const sandbox = await machineSandbox();

interface SavedRun {
  config: { install?: string };
  finalCheck?: { command: string; ok: boolean; output: string };
}

async function savedRun(dir: string): Promise<SavedRun | undefined> {
  const state = JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')) as {
    runs: Record<string, SavedRun>;
  };
  return Object.values(state.runs)[0];
}

describe('maker run --install', () => {
  it.runIf(sandbox !== undefined)(
    'keeps the install command in the run and installs with it before the check (skipped without bubblewrap)',
    async () => {
      const dir = await tempDir();
      // The subtasks' checks are not the subject: the install feeds your --check, which runs
      // without them, on a tree of one level.
      const out = await simRun(dir, [
        '--no-checks',
        '--max-depth',
        '1',
        '--install',
        'echo "installed by $0" > installed.txt',
        '--check',
        'cat installed.txt',
        '--json',
      ]);
      expect(out.code, out.stderr).toBe(0);
      const run = await savedRun(dir);
      expect(run?.config.install).toBe('echo "installed by $0" > installed.txt');
      expect(run?.finalCheck).toMatchObject({ command: 'cat installed.txt', ok: true });
      expect(run?.finalCheck?.output).toContain('installed by /bin/sh');
    },
  );

  it('takes none for no install, kept as an empty command', async () => {
    const dir = await tempDir();
    const out = await simRun(dir, [
      '--no-checks',
      '--max-depth',
      '1',
      '--install',
      'none',
      '--json',
    ]);
    expect(out.code, out.stderr).toBe(0);
    expect((await savedRun(dir))?.config.install).toBe('');
  });

  it('refuses an install command too long to be one, creating nothing', async () => {
    const dir = join(await tempDir(), 'repo');
    const out = await maker([
      'run',
      'a tool',
      '--dir',
      dir,
      '--worker',
      'sim',
      '--install',
      'x'.repeat(2001),
    ]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('--install');
  });
});
