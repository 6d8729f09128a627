import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeGitHub } from '../../src/offline/fake-github.js';
import { TOKENS, git, testOctokit, useFakeGitHub } from '../helpers/github.js';
import { useTempDirs } from '../helpers/tmp.js';
import { maker } from '../helpers/cli.js';

/**
 * What a person sees when GitHub is not as the run needs it (the token, its permissions, the
 * repository, rate limits), through the bundled CLI against the fake GitHub: one clear message,
 * every problem at once, nothing created twice and nothing lost.
 */
const tempDir = useTempDirs();
const startFake = useFakeGitHub();

/**
 * `maker run` of a tree of one level (a root and its leaves): the faults here are the token's, the
 * repository's and the pull request's, which a deeper tree only repeats per branch.
 */
const run = (fake: FakeGitHub, dir: string, repo: string, token: string, ...more: string[]) =>
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
      '--max-depth',
      '1',
      '--github',
      repo,
      ...more,
    ],
    { GITHUB_API_URL: fake.baseUrl, GITHUB_TOKEN: token },
  );

describe('GitHub faults, as the CLI reports them', () => {
  it.each([
    {
      name: 'a token GitHub refuses',
      token: `ghp_${'Z'.repeat(36)}`,
      says: ['GitHub refused the token (401', 'GITHUB_TOKEN'],
    },
    {
      name: 'a classic token without the repo scope',
      token: TOKENS.classicNoRepo,
      says: ['cannot create alice/app: a classic token needs the repo scope (it has read:user)'],
    },
  ])(
    '$name: stops before anything is created, naming the fix',
    async ({ token, says }) => {
      const fake = await startFake();
      const dir = join(await tempDir(), 'app');
      const result = await run(fake, dir, 'alice/app', token);
      expect(result.code).not.toBe(0);
      for (const s of says) expect(result.stderr).toContain(s);
      expect(result.stderr).toContain('Nothing was created or changed.');
      expect(result.stderr).not.toContain(token);
      expect(existsSync(dir)).toBe(false);
      expect((await fake.state()).repos).toEqual([]);
    },
    60_000,
  );

  it('a read-only token on an existing repository: names Contents and Pull requests; every problem at once', async () => {
    const fake = await startFake();
    await testOctokit(fake).rest.repos.createForAuthenticatedUser({ name: 'app', auto_init: true });
    const dir = join(await tempDir(), 'app');
    const result = await maker(
      ['run', 'a csv tool', '--dir', dir, '--worker', 'jules', '--github', 'alice/app'],
      { GITHUB_API_URL: fake.baseUrl, GITHUB_TOKEN: TOKENS.readOnly },
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      'The GitHub token may not push to alice/app. It needs the Contents: Read and write and Pull requests: Read and write permissions',
    );
    // The worker's own problems in the same message.
    expect(result.stderr).toContain('JULES_API_KEY is not set');
    expect(existsSync(dir)).toBe(false);
  }, 60_000);

  it('a fine-grained token without Administration: the create is refused naming it, and nothing else happens', async () => {
    const fake = await startFake();
    const dir = join(await tempDir(), 'app');
    const result = await run(fake, dir, 'alice/app', TOKENS.noAdmin);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('may not create the repository alice/app');
    expect(result.stderr).toContain('Administration: Read and write');
    expect((await fake.state()).repos).toEqual([]);
    expect(existsSync(join(dir, 'maker-state.json'))).toBe(false);
  }, 60_000);

  it('a workspace whose history differs from the repository’s is refused; one that agrees is pushed and used', async () => {
    const fake = await startFake();
    await testOctokit(fake).rest.repos.createForAuthenticatedUser({
      name: 'theirs',
      auto_init: true,
    });
    const mine = await tempDir();
    expect((await git(mine, ['init', '-q', '-b', 'main'])).code).toBe(0);
    await writeFile(join(mine, 'a.txt'), 'mine\n');
    await git(mine, ['add', 'a.txt']);
    await git(mine, ['commit', '-qm', 'mine']);
    const refused = await run(fake, mine, 'alice/theirs', TOKENS.full);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('have different histories');
    expect((await fake.state()).repos[0]?.pulls).toEqual([]);

    // An empty folder clones it instead.
    const empty = join(await tempDir(), 'clone');
    await mkdir(empty);
    const cloned = await run(fake, empty, 'alice/theirs', TOKENS.full);
    expect(cloned.code, cloned.stderr).toBe(0);
    expect(cloned.stderr).toContain('GitHub: cloned');
    expect(await readFile(join(empty, 'README.md'), 'utf8')).toContain('theirs');
    expect((await fake.state()).repos[0]?.pulls[0]?.merged).toBe(true);
  }, 120_000);

  it('a rate limit past the cap stops the run saying when to resume; after it, resume finishes with one pull request', async () => {
    const fake = await startFake();
    fake.addFault({
      kind: 'primary-limit',
      method: 'POST',
      path: '/pulls$',
      resetInSeconds: 3600,
      times: 50,
    });
    const dir = join(await tempDir(), 'limited');
    const stopped = await run(fake, dir, 'alice/limited', TOKENS.full);
    expect(stopped.code).toBe(1);
    expect(stopped.stdout).toMatch(
      /GitHub.s rate limit stopped maker .* answers again after \d{4}-\d\d-\d\dT/,
    );
    expect((await fake.state()).repos[0]?.pulls).toEqual([]);
    fake.clearFaults();
    const resumed = await maker(['resume', '--dir', dir, '--hitl', 'auto'], {
      GITHUB_API_URL: fake.baseUrl,
      GITHUB_TOKEN: TOKENS.full,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    const repo = (await fake.state()).repos[0];
    expect(repo?.pulls).toHaveLength(1);
    expect(repo?.pulls[0]?.merged).toBe(true);
  }, 120_000);

  it('a secondary rate limit within the cap is waited out, shown with until when', async () => {
    const fake = await startFake();
    fake.addFault({ kind: 'secondary-limit', method: 'POST', path: '/pulls$', retryAfter: 6 });
    const dir = join(await tempDir(), 'waits');
    const result = await run(fake, dir, 'alice/waits', TOKENS.full);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/waiting for github until/i);
    const journal = await readFile(join(dir, 'maker-journal.jsonl'), 'utf8');
    expect(journal).toMatch(/"type":"wait-start".*"service":"github".*"until":"/);
    expect((await fake.state()).repos[0]?.pulls).toHaveLength(1);
  }, 120_000);
});
