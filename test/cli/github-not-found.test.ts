import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeGitHub } from '../../src/offline/fake-github.js';
import { TOKENS, testOctokit, useFakeGitHub } from '../helpers/github.js';
import { useTempDirs } from '../helpers/tmp.js';
import { maker } from '../helpers/cli.js';

/**
 * `maker run --github <owner>/<name>` naming a repository the token cannot see (GitHub answers
 * 404 for "no access" as for "not found"), through the bundled CLI against the fake GitHub: the
 * run stops saying what to check, creates nothing on GitHub or in the directory, and never prints
 * the token.
 */
const tempDir = useTempDirs();
const startFake = useFakeGitHub();

/** A fake where mallory owns a private repository alice's token cannot see. */
async function fakeWithPrivateRepo(startFake: () => Promise<FakeGitHub>) {
  const fake = await startFake();
  await testOctokit(fake, TOKENS.other).rest.repos.createForAuthenticatedUser({
    name: 'private-repo',
    private: true,
    auto_init: true,
  });
  const before = await fake.state();
  expect(before.repos.map((r) => r.fullName)).toEqual(['mallory/private-repo']);
  fake.clearRequests();
  return { fake, before };
}

const runAs = (fake: FakeGitHub, dir: string, repo: string) =>
  maker(
    [
      'run',
      'a csv tool',
      '--dir',
      dir,
      '--worker',
      'sim',
      '--no-checks',
      '--hitl',
      'auto',
      '--github',
      repo,
    ],
    { GITHUB_API_URL: fake.baseUrl, GITHUB_TOKEN: TOKENS.full },
  );

const CASES = [
  { name: 'a private repository of another user', repo: 'mallory/private-repo' },
  { name: 'an owner that does not exist', repo: 'nobody/app' },
];

describe('GitHub: no access or not found, as the CLI reports it', () => {
  it.each(CASES)(
    '$name: refused before anything starts, naming what to check; nothing created on GitHub or in the directory; no token shown',
    async ({ repo }) => {
      const { fake, before } = await fakeWithPrivateRepo(startFake);
      // A directory that already holds a file of the person's.
      const dir = join(await tempDir(), 'app');
      await mkdir(dir);
      await writeFile(join(dir, 'notes.txt'), 'mine\n');
      const result = await runAs(fake, dir, repo);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `GitHub shows no repository ${repo} to the token, and it cannot be created`,
      );
      expect(result.stderr).toContain('Check the owner and name');
      expect(result.stderr).toContain('Nothing was created or changed.');
      expect(result.stderr).not.toContain('[redacted]');
      expect(result.stdout).toBe('');
      for (const out of [result.stdout, result.stderr]) expect(out).not.toContain(TOKENS.full);
      // Nothing beyond what was there: no .git, no state, journal or lock.
      expect(await readdir(dir)).toEqual(['notes.txt']);
      // Nothing at the fake: no repository, no branch of mallory's touched.
      expect(await fake.state()).toEqual(before);
      expect(fake.requests.some((r) => r.method !== 'GET' && r.status < 300)).toBe(false);
    },
    60_000,
  );

  it('a directory that does not exist yet is not created either', async () => {
    const { fake } = await fakeWithPrivateRepo(startFake);
    const dir = join(await tempDir(), 'app');
    const result = await runAs(fake, dir, 'mallory/private-repo');
    expect(result.code).toBe(2);
    expect(existsSync(dir)).toBe(false);
  }, 60_000);
});
