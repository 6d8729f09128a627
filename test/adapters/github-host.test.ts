import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { GitHubError } from '../../src/adapters/github/errors.js';
import { createGitHubHost, type GitHubHost } from '../../src/adapters/github/github-host.js';
import type { FakeGitHub, FakeGitHubFault } from '../../src/offline/fake-github.js';
import { compareUrl } from '../../src/ports/repo-host.js';
import { git, testOctokit, TOKENS, useFakeGitHub } from '../helpers/github.js';
import { useTempDirs } from '../helpers/tmp.js';

const startFake = useFakeGitHub();
const tempDir = useTempDirs();

function hostFor(fake: FakeGitHub, token: string = TOKENS.full) {
  const slept: number[] = [];
  const host = createGitHubHost({
    token,
    baseUrl: fake.baseUrl,
    throttle: false,
    retryAfterBaseValue: 1,
    sleep: (ms) => (slept.push(ms), Promise.resolve()),
  });
  return { host, slept };
}

const count = (fake: FakeGitHub, method: string, path: RegExp) =>
  fake.requests.filter((r) => r.method === method && path.test(r.path)).length;

/** alice/app with `main` and a branch `feature` one commit ahead. */
async function repoWithFeature(fake: FakeGitHub, host: GitHubHost) {
  const repo = await host.ensureRepository({ owner: 'alice', name: 'app', autoInit: true });
  const dir = await tempDir();
  const url = repo.cloneUrl;
  await git(dir, ['clone', '--quiet', url, 'w'], { token: TOKENS.full, url });
  const work = `${dir}/w`;
  await git(work, ['checkout', '--quiet', '-b', 'feature']);
  await git(work, ['commit', '--quiet', '--allow-empty', '-m', 'feature work']);
  await git(work, ['push', '--quiet', 'origin', 'feature'], { token: TOKENS.full, url });
  const head = (await git(work, ['rev-parse', 'HEAD'])).stdout.trim();
  return { repo, work, url, head };
}

const CREATE_FAULTS: [string, FakeGitHubFault[]][] = [
  ['no fault', []],
  ['a lost reply', [{ kind: 'lost-reply', method: 'POST' }]],
  ['a 502 after the work', [{ kind: 'status', status: 502, when: 'after', method: 'POST' }]],
  ['two 503s before it', [{ kind: 'status', status: 503, method: 'POST', times: 2 }]],
];

describe('GitHubHost: repositories', () => {
  it.each(CREATE_FAULTS)('creates the repository exactly once with %s', async (_name, faults) => {
    const fake = await startFake();
    const { host } = hostFor(fake);
    for (const fault of faults) fake.addFault({ ...fault, path: '^/user/repos$' });
    const repo = await host.ensureRepository({ owner: 'alice', name: 'app', autoInit: true });
    expect(repo).toMatchObject({
      owner: 'alice',
      name: 'app',
      private: true,
      defaultBranch: 'main',
      created: true,
      cloneUrl: fake.gitUrl('alice', 'app'),
    });
    const again = await host.ensureRepository({ owner: 'alice', name: 'app' });
    expect(again).toMatchObject({ id: repo.id, created: false });
    expect((await fake.state()).repos.map((r) => r.fullName)).toEqual(['alice/app']);
    expect(compareUrl(repo, 'main', 'maker/r1/n-root')).toBe(
      `${fake.baseUrl}/alice/app/compare/main...maker/r1/n-root`,
    );
  });

  it('creates in an organisation, public when asked', async () => {
    const fake = await startFake();
    const repo = await hostFor(fake).host.ensureRepository({
      owner: 'acme',
      name: 'tool',
      private: false,
    });
    expect(repo).toMatchObject({ owner: 'acme', private: false, created: true });
  });

  it.each([
    [
      'a bad token',
      'ghp_000000000000000000000000000000000000',
      'auth',
      /GitHub refused the token \(401/,
    ],
    [
      'a token without Administration',
      TOKENS.noAdmin,
      'permission',
      /needs the Administration: Read and write permission/,
    ],
    [
      'a classic token without the repo scope',
      TOKENS.classicNoRepo,
      'permission',
      /needs the Administration: Read and write permission.*classic token: the repo scope/,
    ],
    [
      'another user in an organisation',
      TOKENS.other,
      'not-found',
      /GitHub found nothing to create the repository acme\/x in the organisation acme/,
    ],
  ])(
    'refuses with %s, saying what to fix and never the token',
    async (_name, token, kind, message) => {
      const fake = await startFake();
      const owner = token === TOKENS.other ? 'acme' : 'alice';
      const error = await hostFor(fake, token)
        .host.ensureRepository({ owner, name: 'x' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GitHubError);
      expect(error).toMatchObject({ kind, service: 'github' });
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain(token);
      expect((await fake.state()).repos).toEqual([]);
    },
  );

  it('says when a repository exists but the token cannot see it', async () => {
    const fake = await startFake();
    await hostFor(fake).host.ensureRepository({ owner: 'alice', name: 'app' });
    // GET answers 404 (as for a repository the token may not see): the create then reports it exists.
    fake.addFault({
      kind: 'status',
      status: 404,
      method: 'GET',
      path: '^/repos/alice/app$',
      times: 2,
    });
    const error = await hostFor(fake)
      .host.ensureRepository({ owner: 'alice', name: 'app' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'permission' });
    expect((error as Error).message).toMatch(/exists, but the token cannot see it/);
    expect((await fake.state()).repos).toHaveLength(1);
  });
});

describe('GitHubHost: reads while a run starts', () => {
  it.each([500, 502, 503])(
    'a single %i on GET /repos/{owner}/{repo} is retried, as reads later in the run are',
    async (status) => {
      const fake = await startFake();
      const { host } = hostFor(fake);
      await host.ensureRepository({ owner: 'alice', name: 'app' });
      const read = '^/repos/alice/app$';
      // The checks' look (inspect) and the set-up's (ensure), each answered once with a 5xx.
      fake.addFault({ kind: 'status', status, method: 'GET', path: read });
      expect(await host.inspectRepository({ owner: 'alice', name: 'app' })).toMatchObject({
        name: 'app',
        canPush: true,
      });
      fake.addFault({ kind: 'status', status, method: 'GET', path: read });
      expect(await host.ensureRepository({ owner: 'alice', name: 'app' })).toMatchObject({
        created: false,
      });
      expect(count(fake, 'GET', new RegExp(read))).toBe(5);
      expect((await fake.state()).repos).toHaveLength(1);
    },
  );
});

describe('GitHubHost: pull requests', () => {
  it.each(CREATE_FAULTS)('opens the pull request exactly once with %s', async (_name, faults) => {
    const fake = await startFake();
    const { host } = hostFor(fake);
    const { repo, head } = await repoWithFeature(fake, host);
    // Another pull request exists: a lookup that ignored the head filter would find it.
    await testOctokit(fake).rest.git.createRef({
      owner: 'alice',
      repo: 'app',
      ref: 'refs/heads/other',
      sha: head,
    });
    await testOctokit(fake).rest.pulls.create({
      owner: 'alice',
      repo: 'app',
      head: 'other',
      base: 'main',
      title: 'Other',
    });
    for (const fault of faults) fake.addFault({ ...fault, path: '/pulls$' });
    const spec = { head: 'feature', base: 'main', title: 'Result', body: 'the tree' };
    const pr = await host.openPullRequest(repo, spec);
    expect(pr).toMatchObject({
      number: 2,
      state: 'open',
      headRef: 'feature',
      headSha: head,
      baseRef: 'main',
      body: 'the tree',
    });
    expect(pr.url).toBe(`${fake.baseUrl}/alice/app/pull/2`);
    expect(await host.openPullRequest(repo, spec)).toMatchObject({ number: 2 });
    expect((await fake.state()).repos[0]?.pulls.map((p) => p.head)).toEqual(['other', 'feature']);
  });

  it.each(CREATE_FAULTS)('comments exactly once with %s', async (_name, faults) => {
    const fake = await startFake();
    const { host } = hostFor(fake);
    const { repo } = await repoWithFeature(fake, host);
    const pr = await host.openPullRequest(repo, {
      head: 'feature',
      base: 'main',
      title: 'T',
      body: '',
    });
    for (const fault of faults) fake.addFault({ ...fault, path: '/comments$' });
    const comment = { key: 'veto-r1', body: 'Vetoed.' };
    const made = await host.addComment(repo, pr.number, comment);
    expect(await host.addComment(repo, pr.number, comment)).toEqual(made);
    const comments = (await fake.state()).repos[0]?.comments ?? [];
    expect(comments).toHaveLength(1);
    expect(comments[0]?.body).toContain('<!-- maker:veto-r1 -->');
  });

  it('updates the body, closes idempotently, and finds closed pull requests', async () => {
    const fake = await startFake();
    const { host } = hostFor(fake);
    const { repo } = await repoWithFeature(fake, host);
    const pr = await host.openPullRequest(repo, {
      head: 'feature',
      base: 'main',
      title: 'T',
      body: 'one',
    });
    expect(await host.updatePullRequest(repo, pr.number, { body: 'two' })).toMatchObject({
      body: 'two',
    });
    expect(await host.updatePullRequest(repo, pr.number, { state: 'closed' })).toMatchObject({
      state: 'closed',
    });
    expect(await host.updatePullRequest(repo, pr.number, { state: 'closed' })).toMatchObject({
      state: 'closed',
    });
    expect(await host.findPullRequest(repo, 'feature')).toMatchObject({
      number: pr.number,
      state: 'closed',
    });
    expect(await host.findPullRequest(repo, 'nope')).toBeUndefined();
  });

  it('merges at the expected head, waiting for mergeability; a lost reply still gives one merge', async () => {
    const fake = await startFake();
    const { host, slept } = hostFor(fake);
    const { repo } = await repoWithFeature(fake, host);
    const pr = await host.openPullRequest(repo, {
      head: 'feature',
      base: 'main',
      title: 'T',
      body: '',
    });
    // The head moves after the pull request opened: GitHub computes its mergeability again.
    const head = await fake.foreignCommit({ owner: 'alice', repo: 'app', branch: 'feature' });
    fake.addFault({ kind: 'lost-reply', method: 'PUT', path: '/merge$' });
    const merged = await host.mergePullRequest(repo, pr.number, { expectedHeadSha: head });
    expect(merged).toMatchObject({ status: 'merged' });
    const state = (await fake.state()).repos[0];
    expect(state?.branches['main']).toBe((merged as { sha: string }).sha);
    expect(state?.pulls[0]).toMatchObject({ state: 'closed', merged: true });
    expect(count(fake, 'PUT', /\/merge$/)).toBe(1);
    expect(slept.length).toBeGreaterThan(0); // mergeable was null on the first read
    // Asking again is the same merge; closing a merged pull request leaves it merged.
    expect(await host.mergePullRequest(repo, pr.number, { expectedHeadSha: head })).toEqual(merged);
    expect(await host.updatePullRequest(repo, pr.number, { state: 'closed' })).toMatchObject({
      state: 'merged',
    });
  });

  it('does not merge a head that moved, a base that now conflicts, or a closed pull request', async () => {
    const fake = await startFake();
    const { host } = hostFor(fake);
    const { repo, head, work, url } = await repoWithFeature(fake, host);
    const pr = await host.openPullRequest(repo, {
      head: 'feature',
      base: 'main',
      title: 'T',
      body: '',
    });
    const moved = await fake.foreignCommit({ owner: 'alice', repo: 'app', branch: 'feature' });
    expect(await host.mergePullRequest(repo, pr.number, { expectedHeadSha: head })).toEqual({
      status: 'head-moved',
      headSha: moved,
    });

    // The head deletes README.md, the base edits it: no longer mergeable.
    await git(work, ['pull', '--quiet', 'origin', 'feature'], { token: TOKENS.full, url });
    await git(work, ['rm', '--quiet', 'README.md']);
    await git(work, ['commit', '--quiet', '-m', 'drop README']);
    await git(work, ['push', '--quiet', 'origin', 'feature'], { token: TOKENS.full, url });
    const newHead = (await git(work, ['rev-parse', 'HEAD'])).stdout.trim();
    await git(work, ['checkout', '--quiet', 'main']);
    await git(work, ['pull', '--quiet', 'origin', 'main'], { token: TOKENS.full, url });
    await writeFile(`${work}/README.md`, 'edited\n');
    await git(work, ['commit', '--quiet', '-am', 'edit README']);
    await git(work, ['push', '--quiet', 'origin', 'main'], { token: TOKENS.full, url });
    const refused = await host.mergePullRequest(repo, pr.number, { expectedHeadSha: newHead });
    expect(refused).toMatchObject({ status: 'not-mergeable' });
    expect((await fake.state()).repos[0]?.pulls[0]).toMatchObject({ state: 'open', merged: false });

    await host.updatePullRequest(repo, pr.number, { state: 'closed' });
    expect(await host.mergePullRequest(repo, pr.number, { expectedHeadSha: newHead })).toEqual({
      status: 'closed',
    });
  });

  it.each(CREATE_FAULTS)('adds a keyed comment exactly once with %s', async (_name, faults) => {
    const fake = await startFake();
    const { host } = hostFor(fake);
    const { repo } = await repoWithFeature(fake, host);
    const pr = await host.openPullRequest(repo, {
      head: 'feature',
      base: 'main',
      title: 'T',
      body: '',
    });
    for (const fault of faults) fake.addFault({ ...fault, path: '/comments$' });
    const first = await host.addComment(repo, pr.number, { key: 'veto/r1', body: 'Vetoed.' });
    const second = await host.addComment(repo, pr.number, { key: 'veto/r1', body: 'Vetoed.' });
    expect(second).toEqual(first);
    const comments = (await fake.state()).repos[0]?.comments ?? [];
    expect(comments.map((c) => c.body)).toEqual(['Vetoed.\n\n<!-- maker:veto/r1 -->']);
  });

  it('names the missing permission when the token cannot write pull requests', async () => {
    const fake = await startFake();
    const { repo } = await repoWithFeature(fake, hostFor(fake).host);
    const error = await hostFor(fake, TOKENS.readOnly)
      .host.openPullRequest(repo, { head: 'feature', base: 'main', title: 'T', body: '' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'permission' });
    expect((error as Error).message).toMatch(/needs the Pull requests: Read and write permission/);
    expect((error as Error).message).not.toContain(TOKENS.readOnly);
  });
});
