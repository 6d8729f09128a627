import { existsSync } from 'node:fs';
import { chmod, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeGitHub } from '../../src/offline/fake-github.js';
import { maker } from '../helpers/cli.js';
import {
  DEFAULT_FAKE_OPTIONS,
  TOKENS,
  git,
  testOctokit,
  useFakeGitHub,
} from '../helpers/github.js';
import { useTempDirs } from '../helpers/tmp.js';

/**
 * One table of stops (src/core/stops.ts): a refusal before anything exists exits 2 saying nothing
 * was created or changed, and never points at `maker resume`; a start that failed once something
 * was set up exits 1 saying to run the same command again. Through the bundled CLI, on the fake.
 */
const tempDir = useTempDirs();
const startFake = useFakeGitHub();

const run = (fake: FakeGitHub, dir: string, repo: string, token: string) =>
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
    { GITHUB_API_URL: fake.baseUrl, GITHUB_TOKEN: token },
  );

describe('stops before a run exists', () => {
  it.each([
    {
      // Failed at main: exit 1, without "Nothing was created or changed."
      name: 'a token without Administration',
      repo: 'alice/app',
      token: TOKENS.noAdmin,
      says: ['Administration: Read and write'],
    },
    {
      // Failed at main: exit 1, without "Nothing was created or changed."
      name: 'an organisation the token may not create in',
      repo: 'outside/app',
      token: TOKENS.full,
      says: ['outside/app'],
    },
  ])(
    '$name: exit 2, nothing created or changed, no maker resume',
    async ({ repo, token, says }) => {
      const fake = await startFake({
        organizations: [
          ...(DEFAULT_FAKE_OPTIONS.organizations ?? []),
          { login: 'outside', members: ['mallory'] },
        ],
      });
      const dir = join(await tempDir(), 'app');
      const result = await run(fake, dir, repo, token);
      expect(result.code, result.stderr).toBe(2);
      for (const s of says) expect(result.stderr).toContain(s);
      expect(result.stderr).toContain('Nothing was created or changed.');
      expect(result.stderr).not.toContain('maker resume');
      expect(existsSync(dir)).toBe(false);
      expect((await fake.state()).repos).toEqual([]);
    },
    60_000,
  );

  it.each([
    {
      // Failed at main: exit 1, "Resume after … (maker resume)" though there is nothing to resume;
      // then exit 2, the usage-error status, though the command was right.
      name: 'a primary rate limit on the repository create',
      method: 'POST',
      path: '/user/repos$',
    },
    {
      // Failed at main: exit 2, the usage-error status, though the command was right.
      name: 'a primary rate limit in the checks before the run (GET /repos/{owner}/{repo})',
      method: 'GET',
      path: '^/repos/alice/app$',
    },
  ])(
    '$name: exit 75, when to run the same command again, nothing created or changed',
    async ({ method, path }) => {
      const fake = await startFake();
      fake.addFault({ kind: 'primary-limit', method, path, resetInSeconds: 3600, times: 50 });
      const dir = join(await tempDir(), 'app');
      const result = await run(fake, dir, 'alice/app', TOKENS.full);
      expect(result.code, result.stderr).toBe(75);
      expect(result.stderr).toContain("GitHub's rate limit stopped maker");
      expect(result.stderr).toMatch(
        /Nothing was created or changed\. Run the same command again after \d{4}-\d\d-\d\dT/,
      );
      expect(result.stderr).not.toContain('maker resume');
      expect(existsSync(dir)).toBe(false);
      expect((await fake.state()).repos).toEqual([]);
    },
    60_000,
  );

  it('maker resume where a run was stopped during its checks: nothing was created, run the same maker run again', async () => {
    // Failed at main: "there is no run to resume there", and nothing more.
    const parent = await tempDir();
    const missing = await maker(['resume', '--dir', join(parent, 'app')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      'there is no run to resume there. If a `maker run` was stopped here before it started (during its checks, which change nothing), nothing was created: run the same `maker run` command again.',
    );
    await git(parent, ['init', '-q', '-b', 'main']);
    const empty = await maker(['resume', '--dir', parent]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('no unfinished run. If a `maker run` was stopped here');
  });

  it('a first push the remote rejects: exit 1, the hook’s words, maker resume finishes the recorded start (and that works)', async () => {
    // Failed at main: the hook's words were dropped, and nothing said to run maker run again.
    const fake = await startFake();
    await testOctokit(fake).rest.repos.createForAuthenticatedUser({ name: 'app' });
    const hook = join(fake.root, 'alice', 'app.git', 'hooks', 'pre-receive');
    await writeFile(
      hook,
      '#!/bin/sh\necho "GH013: Repository rule violations found" >&2\nexit 1\n',
    );
    await chmod(hook, 0o755);
    const dir = await tempDir();
    await git(dir, ['init', '-q', '-b', 'main']);
    await writeFile(join(dir, 'a.txt'), 'mine\n');
    await git(dir, ['add', 'a.txt']);
    await git(dir, ['commit', '-qm', 'mine']);
    const refused = await run(fake, dir, 'alice/app', TOKENS.full);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toContain('The remote said: GH013: Repository rule violations found');
    // Its start is recorded before anything is made: `maker resume` finishes it.
    expect(refused.stderr).toContain('its start is recorded: fix the cause, then `maker resume`');
    await rm(hook);
    const again = await maker(['resume', '--dir', dir, '--hitl', 'auto'], {
      GITHUB_API_URL: fake.baseUrl,
      GITHUB_TOKEN: TOKENS.full,
    });
    expect(again.code, again.stderr).toBe(0);
    expect((await fake.state()).repos[0]?.pulls[0]?.merged).toBe(true);
  }, 120_000);
});

describe('a long Retry-After on the pull request create', () => {
  it('is honoured by the pull request keeper and the final step: one create sent, nothing after it, maker resume', async () => {
    // Failed at main: the final step created again at once, after the keeper's create was limited.
    const fake = await startFake();
    fake.addFault({ kind: 'secondary-limit', retryAfter: 120, method: 'POST', path: '/pulls$' });
    const dir = join(await tempDir(), 'app');
    const stopped = await run(fake, dir, 'alice/app', TOKENS.full);
    expect(stopped.code, stopped.stderr).toBe(1);
    const api = fake.requests.filter((r) => r.kind === 'api');
    const limited = api.findIndex((r) => r.method === 'POST' && /\/pulls$/.test(r.path));
    expect(limited).toBeGreaterThanOrEqual(0);
    expect(api.slice(limited + 1)).toEqual([]);
    expect(`${stopped.stdout}${stopped.stderr}`).toMatch(
      /secondary rate limit .* answers again after/,
    );
    expect(`${stopped.stdout}${stopped.stderr}`).toContain('maker resume');
  }, 120_000);
});
