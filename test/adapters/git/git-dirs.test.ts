import { execFileSync } from 'node:child_process';
import { mkdir, readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitDirsOf } from '../../../src/adapters/git/git-repo.js';
import { gitProcessCounts } from '../../../src/adapters/git/run-git.js';
import { initCommitted } from '../../helpers/repo.js';
import { useTempDirs } from '../../helpers/tmp.js';

const tempDir = useTempDirs();

function git(dir: string, ...args: string[]): void {
  execFileSync('git', ['-C', dir, ...args], { stdio: 'ignore' });
}

/** A repository with one commit at `name` under a fresh directory, and a linked work tree beside. */
async function repositoryAt(name: string) {
  const dir = join(await realpath(await tempDir()), name);
  await mkdir(dir);
  initCommitted(dir, 'one');
  const linked = `${dir} linked`;
  git(dir, 'worktree', 'add', '-q', '-b', 'side', linked);
  return { dir, linked };
}

/** A linked work tree's own git directory, as its `.git` file names it. */
async function ownOf(linked: string): Promise<string> {
  const said = await readFile(join(linked, '.git'), 'utf8');
  return /^gitdir: (.*)\n$/s.exec(said)?.[1] ?? said;
}

describe('gitDirsOf', () => {
  // Proves: both git directories come back exactly, from one git process where no path holds a
  // line break, and still exactly where one does (a path's own spaces and breaks kept).
  it('reads both directories of a main and a linked work tree in one process', async () => {
    const { dir, linked } = await repositoryAt('plain ');
    const before = gitProcessCounts().total;
    expect(await gitDirsOf(dir)).toEqual({ common: join(dir, '.git'), own: join(dir, '.git') });
    expect(gitProcessCounts().total - before).toBe(1);
    expect(await gitDirsOf(linked)).toEqual({
      common: join(dir, '.git'),
      own: await ownOf(linked),
    });
  });

  it('reads them exactly where a path holds a line break', async () => {
    const { dir, linked } = await repositoryAt('two\nlines ');
    expect(await gitDirsOf(dir)).toEqual({ common: join(dir, '.git'), own: join(dir, '.git') });
    expect(await gitDirsOf(linked)).toEqual({
      common: join(dir, '.git'),
      own: await ownOf(linked),
    });
  });
});
