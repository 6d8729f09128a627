import { RequestError } from 'octokit';
import { describe, expect, it } from 'vitest';
import { git, testOctokit, TOKENS, useFakeGitHub } from '../helpers/github.js';
import { useTempDirs } from '../helpers/tmp.js';

const startFake = useFakeGitHub();
const tempDir = useTempDirs();

async function withRepo() {
  const fake = await startFake();
  await testOctokit(fake).rest.repos.createForAuthenticatedUser({ name: 'app', auto_init: true });
  const url = fake.gitUrl('alice', 'app');
  const dir = await tempDir();
  return { fake, url, dir };
}

describe('fake GitHub: git smart HTTP', () => {
  it('clones, pushes and fetches with the token as Basic password; needs it for private repositories and pushes', async () => {
    const { fake, url, dir } = await withRepo();
    const anonymous = await git(dir, ['clone', '--quiet', url, 'anon']);
    expect(anonymous.code).not.toBe(0);
    expect(anonymous.stderr).toMatch(/Authentication failed|could not read Username|401/);

    const cloned = await git(dir, ['clone', '--quiet', url, 'w'], { token: TOKENS.full, url });
    expect(cloned.code).toBe(0);
    const work = `${dir}/w`;
    await git(work, ['commit', '--quiet', '--allow-empty', '-m', 'mine']);
    const pushed = await git(work, ['push', '--porcelain', 'origin', 'main'], {
      token: TOKENS.full,
      url,
    });
    expect(pushed.code).toBe(0);
    const head = (await git(work, ['rev-parse', 'HEAD'])).stdout.trim();
    expect((await fake.state()).repos[0]?.branches).toEqual({ main: head });

    // A Bearer header works too.
    const bearer = await git(work, [
      '-c',
      `http.extraHeader=Authorization: Bearer ${TOKENS.full}`,
      'ls-remote',
      url,
    ]);
    expect(bearer.stdout).toContain(head);

    const readOnly = await git(work, ['push', '--quiet', 'origin', `HEAD:refs/heads/other`], {
      token: TOKENS.readOnly,
      url,
    });
    expect(readOnly.code).not.toBe(0);
    expect(readOnly.stderr).toContain('403');
    const revoked = TOKENS.other;
    fake.revokeToken(revoked);
    const bad = await git(work, ['fetch', 'origin'], { token: revoked, url });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/Authentication failed|could not read Username/);
    // Nothing the fake keeps or answers carries a token.
    const log = JSON.stringify(fake.requests) + JSON.stringify(await fake.state());
    for (const token of Object.values(TOKENS)) expect(log).not.toContain(token);
    expect(fake.requests.filter((r) => r.kind === 'git').length).toBeGreaterThan(4);
  });

  it('rejects a push that is not a fast-forward, and a lease someone else broke', async () => {
    const { fake, url, dir } = await withRepo();
    await git(dir, ['clone', '--quiet', url, 'w'], { token: TOKENS.full, url });
    const work = `${dir}/w`;
    const foreign = await fake.foreignCommit({ owner: 'alice', repo: 'app' });
    await git(work, ['commit', '--quiet', '--allow-empty', '-m', 'mine']);
    const plain = await git(work, ['push', '--porcelain', 'origin', 'main'], {
      token: TOKENS.full,
      url,
    });
    expect(plain.code).not.toBe(0);
    expect(plain.stdout).toMatch(
      /^!\trefs\/heads\/main:refs\/heads\/main\t\[rejected\] \((fetch first|non-fast-forward)\)$/m,
    );
    const before = (await git(work, ['rev-parse', 'origin/main'])).stdout.trim();
    const leased = await git(
      work,
      [
        'push',
        '--porcelain',
        `--force-with-lease=refs/heads/main:${before}`,
        url,
        'HEAD:refs/heads/main',
      ],
      { token: TOKENS.full, url },
    );
    expect(leased.stdout).toContain('[rejected] (stale info)');
    expect((await fake.state()).repos[0]?.branches['main']).toBe(foreign);
  });

  it('closes a pull request whose head branch is deleted and marks one merged when its head is pushed into the base', async () => {
    const { fake, url, dir } = await withRepo();
    const octokit = testOctokit(fake);
    await git(dir, ['clone', '--quiet', url, 'w'], { token: TOKENS.full, url });
    const work = `${dir}/w`;
    await git(work, ['commit', '--quiet', '--allow-empty', '-m', 'a']);
    await git(work, ['push', '--quiet', 'origin', 'HEAD:refs/heads/a', 'HEAD:refs/heads/b'], {
      token: TOKENS.full,
      url,
    });
    const o = { owner: 'alice', repo: 'app', base: 'main' };
    await octokit.rest.pulls.create({ ...o, head: 'a', title: 'A' });
    await octokit.rest.pulls.create({ ...o, head: 'b', title: 'B' });
    await git(work, ['push', '--quiet', 'origin', ':refs/heads/a', 'HEAD:refs/heads/main'], {
      token: TOKENS.full,
      url,
    });
    const pulls = (await fake.state()).repos[0]?.pulls;
    expect(pulls?.map((p) => [p.head, p.state, p.merged])).toEqual([
      ['a', 'closed', false],
      ['b', 'closed', true],
    ]);
  });
});

describe('fake GitHub: fault knobs', () => {
  it('answers 5xx for the next N matching requests, before or after doing the work', async () => {
    const fake = await startFake();
    const octokit = testOctokit(fake);
    fake.addFault({ kind: 'status', status: 502, method: 'POST', path: '^/user/repos$', times: 2 });
    for (let i = 0; i < 2; i++)
      await expect(
        octokit.rest.repos.createForAuthenticatedUser({ name: 'a' }),
      ).rejects.toMatchObject({ status: 502 });
    expect((await fake.state()).repos).toEqual([]);
    fake.addFault({ kind: 'status', status: 500, when: 'after', path: '/user/repos' });
    await expect(
      octokit.rest.repos.createForAuthenticatedUser({ name: 'a' }),
    ).rejects.toMatchObject({ status: 500 });
    expect((await fake.state()).repos.map((r) => r.fullName)).toEqual(['alice/a']);
    expect(fake.requests.map((r) => r.status)).toEqual([502, 502, 500]);
  });

  it('loses the reply after a create: the object exists, the client sees no answer', async () => {
    const fake = await startFake();
    fake.addFault({ kind: 'lost-reply', method: 'POST' });
    const error = await testOctokit(fake)
      .rest.repos.createForAuthenticatedUser({ name: 'a' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestError);
    expect((error as RequestError).response).toBeUndefined();
    expect((await fake.state()).repos.map((r) => r.fullName)).toEqual(['alice/a']);
  });

  it.each([
    [
      { kind: 'secondary-limit', status: 429, retryAfter: 7 } as const,
      429,
      /secondary rate limit/,
      { 'retry-after': '7' },
    ],
    [
      { kind: 'primary-limit', resetInSeconds: 90 } as const,
      403,
      /API rate limit exceeded/,
      { 'x-ratelimit-remaining': '0' },
    ],
  ])('answers rate limits as GitHub does (%o)', async (fault, status, message, headers) => {
    const fake = await startFake();
    fake.addFault(fault);
    const error = (await testOctokit(fake)
      .rest.users.getAuthenticated()
      .catch((e: unknown) => e)) as RequestError;
    expect(error.status).toBe(status);
    expect(error.message).toMatch(message);
    expect(error.response?.headers).toMatchObject(headers);
    if (fault.kind === 'primary-limit')
      expect(Number(error.response?.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(
        Math.floor(Date.now() / 1000) + 89,
      );
    await expect(testOctokit(fake).rest.users.getAuthenticated()).resolves.toMatchObject({
      status: 200,
    });
  });

  it('is driven through /_fake control routes from another process', async () => {
    const fake = await startFake();
    const octokit = testOctokit(fake);
    await octokit.rest.repos.createForAuthenticatedUser({ name: 'app', auto_init: true });
    const control = (method: string, path: string, body?: unknown) =>
      fetch(`${fake.baseUrl}/_fake/${path}`, {
        method,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    expect(
      (await control('POST', 'faults', { kind: 'status', status: 503, path: '^/user$' })).status,
    ).toBe(204);
    await expect(octokit.rest.users.getAuthenticated()).rejects.toMatchObject({ status: 503 });
    const moved = (await (
      await control('POST', 'foreign-commit', { owner: 'alice', repo: 'app' })
    ).json()) as { sha: string };
    const state = (await (await control('GET', 'state')).json()) as {
      repos: { branches: Record<string, string> }[];
    };
    expect(state.repos[0]?.branches['main']).toBe(moved.sha);
    const log = (await (await control('GET', 'requests')).json()) as {
      requests: { method: string; path: string; status: number }[];
    };
    expect(log.requests).toEqual([
      { kind: 'api', method: 'POST', path: '/user/repos', status: 201 },
      { kind: 'api', method: 'GET', path: '/user', status: 503 },
    ]);
    expect((await control('POST', 'revoke-token', { token: TOKENS.full })).status).toBe(204);
    await expect(octokit.rest.users.getAuthenticated()).rejects.toMatchObject({ status: 401 });
    expect((await control('POST', 'faults', { kind: 'nonsense' })).status).toBe(400);
  });
});
