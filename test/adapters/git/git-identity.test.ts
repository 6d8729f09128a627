import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { configuredIdentity, rootCommitAuthor } from '../../../src/adapters/git/git-repo.js';
import { gitProcessCounts } from '../../../src/adapters/git/run-git.js';
import { useTempDirs } from '../../helpers/tmp.js';

const tempDir = useTempDirs();

/** A repository whose config is only its own (no global or system identity reaches it). */
async function repository(): Promise<{ dir: string; config: (...args: string[]) => void }> {
  const dir = await tempDir();
  execFileSync('git', ['init', '-q', '-b', 'main', dir]);
  const config = (...args: string[]) =>
    execFileSync('git', ['-C', dir, 'config', ...args], { stdio: 'ignore' });
  return { dir, config };
}

describe('configuredIdentity', () => {
  // Proves: the person's identity is read as `git config --get` reads each key (last value wins,
  // spaces kept), in one git process, and a half-set identity is none.
  it('reads name and email as git config --get does, in one process', async () => {
    const { dir, config } = await repository();
    // git reads the global config from HOME, the one variable of the person's it is given.
    const home = process.env['HOME'];
    process.env['HOME'] = await tempDir();
    // As git reads each key (the machine's system config may set one: compared, not assumed).
    const asGit = () => {
      const get = (key: string) => {
        try {
          return execFileSync('git', ['-C', dir, 'config', '--get', key], {
            encoding: 'utf8',
            env: { ...process.env },
          }).trim();
        } catch {
          return '';
        }
      };
      const [name, email] = [get('user.name'), get('user.email')];
      return name !== '' && email !== '' ? { name, email } : undefined;
    };
    try {
      expect(await configuredIdentity(dir)).toEqual(asGit());
      config('user.name', 'Ada Lovelace');
      expect(await configuredIdentity(dir)).toEqual(asGit()); // without an email: none
      config('user.email', 'ada@example.com');
      config('--add', 'user.name', 'Ada  King, Countess');
      config('user.signingkey', 'ignored');
      const before = gitProcessCounts().byCommand['config'] ?? 0;
      expect(await configuredIdentity(dir)).toEqual({
        name: 'Ada  King, Countess',
        email: 'ada@example.com',
      });
      expect(gitProcessCounts().byCommand['config']).toBe(before + 1);
      expect(asGit()).toEqual({ name: 'Ada  King, Countess', email: 'ada@example.com' });
    } finally {
      if (home === undefined) delete process.env['HOME'];
      else process.env['HOME'] = home;
    }
  });
});

describe('rootCommitAuthor', () => {
  // Proves: what a run says of the repository it made is the first commit's own author, not the
  // configuration read again (which may have changed since, or differ from what git used).
  it('names the author of the branch’s first commit, whatever the configuration says now', async () => {
    const { dir, config } = await repository();
    const commit = (name: string, message: string) =>
      execFileSync('git', ['-C', dir, 'commit', '-q', '--allow-empty', '-m', message], {
        env: {
          PATH: process.env['PATH'] ?? '',
          GIT_AUTHOR_NAME: name,
          GIT_AUTHOR_EMAIL: `${name.toLowerCase()}@example.org`,
          GIT_COMMITTER_NAME: name,
          GIT_COMMITTER_EMAIL: `${name.toLowerCase()}@example.org`,
        },
      });
    commit('Ada', 'first');
    commit('Grace', 'second');
    config('user.name', 'Someone Else');
    config('user.email', 'else@example.org');
    expect(await rootCommitAuthor(dir)).toEqual({ name: 'Ada', email: 'ada@example.org' });
  });
});
