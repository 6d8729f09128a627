import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { simRun } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** A person's folder that is not a repository: notes, a secret file, photos (issue 28, item 2). */
async function personalFolder(): Promise<string> {
  const dir = await tempDir();
  await writeFile(join(dir, 'notes.txt'), 'groceries\n');
  await writeFile(join(dir, '.env'), 'TOKEN=abc\n');
  await mkdir(join(dir, 'photos'));
  return dir;
}

describe('maker run in a folder that is not a git repository', () => {
  it('refuses a folder holding files without --init, naming them, and creates nothing', async () => {
    const dir = await personalFolder();
    const result = await simRun(dir, ['--no-checks']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `${dir} is not a git repository and holds files (".env", "notes.txt", "photos")`,
    );
    expect(result.stderr).toMatch(/Give --init to do that.*Nothing was created or changed\./);
    expect((await readdir(dir)).sort()).toEqual(['.env', 'notes.txt', 'photos']);
  });

  it('with --init makes it one, says so, and the first commit is the configured identity’s', async () => {
    const dir = await personalFolder();
    const home = await tempDir();
    await writeFile(
      join(home, '.gitconfig'),
      '[user]\n\tname = Ada Person\n\temail = ada@example.org\n',
    );
    const result = await simRun(dir, ['--init', '--no-checks'], { HOME: home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `maker: made ${dir} a git repository (branch main; its initial commit by Ada Person <ada@example.org>).`,
    );
    const git = (args: string[]) =>
      execFileSync('git', ['-C', dir, ...args], {
        env: { PATH: process.env['PATH'] ?? '', HOME: home },
      })
        .toString()
        .trim();
    const root = git([
      'log',
      '-1',
      '--format=%an <%ae>|%s',
      git(['rev-list', '--max-parents=0', 'HEAD']),
    ]);
    expect(root).toBe('Ada Person <ada@example.org>|Initial commit');
  });

  it('says so when it creates a missing folder, with MAKER as author when no identity is set', async () => {
    const dir = join(await tempDir(), 'new-app');
    const home = await tempDir();
    const result = await simRun(dir, ['--no-checks'], {
      HOME: home,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `maker: made the new folder ${dir} a git repository (branch main; its initial commit by MAKER <maker@localhost>: no git identity is configured).`,
    );
    expect(existsSync(join(dir, '.git'))).toBe(true);
  });

  it('says so when it takes over the lock of a maker process that died holding it', async () => {
    const dir = await tempDir();
    // Only MAKER's own lock is there (a run killed before its git init): not the person's files.
    await writeFile(
      join(dir, 'maker-state.json.lock'),
      JSON.stringify({ pid: 999_999, command: 'run', acquiredAt: '2026-11-26T10:00:00.000Z' }),
    );
    const result = await simRun(dir, ['--no-checks']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'maker: note: maker run (pid 999999, since 2026-11-26T10:00:00.000Z) stopped without releasing this workspace; taking it over.',
    );
  });
});
