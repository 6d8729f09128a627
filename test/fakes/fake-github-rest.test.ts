import { RequestError } from 'octokit';
import { describe, expect, it } from 'vitest';
import { git, testOctokit, TOKENS, useFakeGitHub } from '../helpers/github.js';
import { useTempDirs } from '../helpers/tmp.js';

const startFake = useFakeGitHub();
const tempDir = useTempDirs();

/** The error octokit raised for a call, with GitHub's body and headers. */
async function failure(call: Promise<unknown>): Promise<RequestError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RequestError);
  return error as RequestError;
}

/** A repository with `main` and a branch `feature` one commit ahead (written through the refs API). */
async function repoWithFeature(fakeStart = startFake) {
  const fake = await fakeStart();
  const octokit = testOctokit(fake);
  await octokit.rest.repos.createForAuthenticatedUser({ name: 'app', auto_init: true });
  const dir = await tempDir();
  const url = fake.gitUrl('alice', 'app');
  expect((await git(dir, ['clone', '--quiet', url, 'w'], { token: TOKENS.full, url })).code).toBe(
    0,
  );
  const work = `${dir}/w`;
  await git(work, ['checkout', '--quiet', '-b', 'feature']);
  await git(work, ['commit', '--quiet', '--allow-empty', '-m', 'feature work']);
  const pushed = await git(work, ['push', '--quiet', 'origin', 'feature'], {
    token: TOKENS.full,
    url,
  });
  expect(pushed.stderr).toBe('');
  return { fake, octokit, work, url };
}

describe('fake GitHub: repositories and users', () => {
  it('creates a private repository with its default branch, answers GitHub shapes and rate-limit headers', async () => {
    const fake = await startFake();
    const octokit = testOctokit(fake);
    const user = await octokit.rest.users.getAuthenticated();
    expect(user.data).toMatchObject({ login: 'alice', type: 'User' });
    expect(user.headers['x-ratelimit-limit']).toBe('5000');
    expect(user.headers['x-ratelimit-remaining']).toBe('4999');
    expect(user.headers['x-ratelimit-resource']).toBe('core');
    expect(Number(user.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);

    const created = await octokit.rest.repos.createForAuthenticatedUser({
      name: 'app',
      auto_init: true,
    });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({
      name: 'app',
      full_name: 'alice/app',
      private: true,
      default_branch: 'main',
      owner: { login: 'alice' },
      clone_url: `${fake.baseUrl}/alice/app.git`,
      html_url: `${fake.baseUrl}/alice/app`,
    });
    const main = await octokit.rest.git.getRef({ owner: 'alice', repo: 'app', ref: 'heads/main' });
    expect(main.data.object.sha).toMatch(/^[0-9a-f]{40}$/);
    const got = await octokit.rest.repos.get({ owner: 'alice', repo: 'app' });
    expect(got.data).toMatchObject({
      id: created.data.id,
      permissions: { push: true, admin: true },
    });

    const again = await failure(octokit.rest.repos.createForAuthenticatedUser({ name: 'app' }));
    expect(again.status).toBe(422);
    expect(again.response?.data).toMatchObject({
      message: 'Repository creation failed.',
      errors: [
        { resource: 'Repository', field: 'name', message: 'name already exists on this account' },
      ],
    });

    // Without auto_init the repository is empty: git-data routes answer 409.
    await octokit.rest.repos.createForAuthenticatedUser({ name: 'empty', private: false });
    const empty = await failure(
      octokit.rest.git.getRef({ owner: 'alice', repo: 'empty', ref: 'heads/main' }),
    );
    expect([empty.status, empty.message]).toEqual([
      409,
      expect.stringContaining('Git Repository is empty.'),
    ]);
  });

  it('creates organisation repositories for members only', async () => {
    const fake = await startFake();
    const created = await testOctokit(fake).rest.repos.createInOrg({
      org: 'acme',
      name: 'tool',
      private: false,
    });
    expect(created.data).toMatchObject({
      full_name: 'acme/tool',
      private: false,
      owner: { login: 'acme', type: 'Organization' },
    });
    const outsider = await failure(
      testOctokit(fake, TOKENS.other).rest.repos.createInOrg({ org: 'acme', name: 'x' }),
    );
    expect(outsider.status).toBe(404);
  });

  it.each([
    ['bad token', 'ghp_not-a-token-at-all-000000000000000', 401, 'Bad credentials', undefined],
    [
      'fine-grained without administration',
      TOKENS.noAdmin,
      403,
      'Resource not accessible by personal access token',
      'administration=write',
    ],
    ['classic without repo scope', TOKENS.classicNoRepo, 404, 'Not Found', undefined],
  ])(
    'refuses to create a repository with a %s',
    async (_name, token, status, message, accepted) => {
      const fake = await startFake();
      const error = await failure(
        testOctokit(fake, token).rest.repos.createForAuthenticatedUser({ name: 'x' }),
      );
      expect(error.status).toBe(status);
      expect(error.response?.data).toMatchObject({ message, status: String(status) });
      expect(error.response?.data).toHaveProperty('documentation_url');
      expect(error.response?.headers['x-accepted-github-permissions']).toBe(accepted);
      await expect(fake.state()).resolves.toEqual({ repos: [] });
    },
  );

  it('answers 404 for a private repository the token cannot see, and 401 for a revoked token', async () => {
    const fake = await startFake();
    await testOctokit(fake).rest.repos.createForAuthenticatedUser({ name: 'secret' });
    const hidden = await failure(
      testOctokit(fake, TOKENS.other).rest.repos.get({ owner: 'alice', repo: 'secret' }),
    );
    expect(hidden.status).toBe(404);
    fake.revokeToken(TOKENS.full);
    const revoked = await failure(
      testOctokit(fake).rest.repos.get({ owner: 'alice', repo: 'secret' }),
    );
    expect(revoked.status).toBe(401);
  });
});

describe('fake GitHub: refs, branches, compare', () => {
  it('creates, moves (fast-forward unless forced) and deletes refs', async () => {
    const { octokit } = await repoWithFeature();
    const o = { owner: 'alice', repo: 'app' };
    const main = (await octokit.rest.git.getRef({ ...o, ref: 'heads/main' })).data.object.sha;
    const feature = (await octokit.rest.repos.getBranch({ ...o, branch: 'feature' })).data;
    expect(feature.commit.parents.map((p) => p.sha)).toEqual([main]);

    const created = await octokit.rest.git.createRef({
      ...o,
      ref: 'refs/heads/maker/r1/n-0',
      sha: main,
    });
    expect(created.status).toBe(201);
    const exists = await failure(
      octokit.rest.git.createRef({ ...o, ref: 'refs/heads/maker/r1/n-0', sha: main }),
    );
    expect([exists.status, exists.message]).toEqual([
      422,
      expect.stringContaining('Reference already exists'),
    ]);
    const badName = await failure(octokit.rest.git.createRef({ ...o, ref: 'heads/x', sha: main }));
    expect(badName.status).toBe(422);

    await octokit.rest.git.updateRef({ ...o, ref: 'heads/maker/r1/n-0', sha: feature.commit.sha });
    const back = await failure(
      octokit.rest.git.updateRef({ ...o, ref: 'heads/maker/r1/n-0', sha: main }),
    );
    expect([back.status, back.message]).toEqual([
      422,
      expect.stringContaining('Update is not a fast forward'),
    ]);
    await octokit.rest.git.updateRef({ ...o, ref: 'heads/maker/r1/n-0', sha: main, force: true });

    const matching = await octokit.rest.git.listMatchingRefs({ ...o, ref: 'heads/maker/' });
    expect(matching.data.map((r) => r.ref)).toEqual(['refs/heads/maker/r1/n-0']);
    expect((await octokit.rest.git.deleteRef({ ...o, ref: 'heads/maker/r1/n-0' })).status).toBe(
      204,
    );
    const gone = await failure(octokit.rest.git.deleteRef({ ...o, ref: 'heads/maker/r1/n-0' }));
    expect(gone.status).toBe(422);
    const missing = await failure(octokit.rest.repos.getBranch({ ...o, branch: 'nope' }));
    expect([missing.status, missing.message]).toEqual([
      404,
      expect.stringContaining('Branch not found'),
    ]);
  });

  it('compares base...head', async () => {
    const { octokit } = await repoWithFeature();
    const compared = await octokit.rest.repos.compareCommitsWithBasehead({
      owner: 'alice',
      repo: 'app',
      basehead: 'main...feature',
    });
    expect(compared.data).toMatchObject({
      status: 'ahead',
      ahead_by: 1,
      behind_by: 0,
      total_commits: 1,
      commits: [{ commit: { message: 'feature work' } }],
    });
    expect(compared.data.html_url).toMatch(/\/alice\/app\/compare\/main\.\.\.feature$/);
    const reverse = await octokit.rest.repos.compareCommitsWithBasehead({
      owner: 'alice',
      repo: 'app',
      basehead: 'feature...main',
    });
    expect(reverse.data).toMatchObject({ status: 'behind', ahead_by: 0, behind_by: 1 });
  });
});

describe('fake GitHub: pull requests', () => {
  it('opens, lists (with the un-prefixed head quirk), computes mergeability, updates and comments', async () => {
    const { octokit } = await repoWithFeature();
    const o = { owner: 'alice', repo: 'app' };
    const missingTitle = await failure(
      octokit.request('POST /repos/{owner}/{repo}/pulls', { ...o, head: 'feature', base: 'main' }),
    );
    expect(missingTitle.response?.data).toMatchObject({
      errors: [{ resource: 'PullRequest', code: 'missing_field', field: 'title' }],
    });
    const pr = await octokit.rest.pulls.create({
      ...o,
      head: 'feature',
      base: 'main',
      title: 'Feature',
      body: 'b',
    });
    expect(pr.status).toBe(201);
    expect(pr.data).toMatchObject({
      number: 1,
      state: 'open',
      merged: false,
      mergeable: null,
      head: { ref: 'feature' },
      base: { ref: 'main' },
    });
    const dup = await failure(
      octokit.rest.pulls.create({ ...o, head: 'feature', base: 'main', title: 'Again' }),
    );
    expect(dup.response?.data).toMatchObject({
      message: 'Validation Failed',
      errors: [{ message: 'A pull request already exists for alice:feature.' }],
    });
    const noCommits = await failure(
      octokit.rest.pulls.create({ ...o, head: 'main', base: 'feature', title: 'x' }),
    );
    expect(noCommits.status).toBe(422);

    const first = await octokit.rest.pulls.get({ ...o, pull_number: 1 });
    expect(first.data.mergeable === null || first.data.mergeable).toBe(true);
    const second = await octokit.rest.pulls.get({ ...o, pull_number: 1 });
    expect(second.data).toMatchObject({ mergeable: true, mergeable_state: 'clean' });

    const listed = await octokit.rest.pulls.list({ ...o, head: 'alice:feature', state: 'all' });
    expect(listed.data.map((p) => p.number)).toEqual([1]);
    expect(listed.data[0]).not.toHaveProperty('merged');
    expect(listed.data[0]).not.toHaveProperty('mergeable');
    expect((await octokit.rest.pulls.list({ ...o, head: 'alice:other' })).data).toEqual([]);
    // The quirk: a head without its owner prefix is silently ignored.
    expect(
      (await octokit.rest.pulls.list({ ...o, head: 'other' })).data.map((p) => p.number),
    ).toEqual([1]);

    const updated = await octokit.rest.pulls.update({
      ...o,
      pull_number: 1,
      body: 'new body',
      title: 'Feature!',
    });
    expect(updated.data).toMatchObject({ body: 'new body', title: 'Feature!' });
    await octokit.rest.issues.createComment({ ...o, issue_number: 1, body: 'hello' });
    const comments = await octokit.rest.issues.listComments({ ...o, issue_number: 1 });
    expect(comments.data.map((c) => c.body)).toEqual(['hello']);
    const closed = await octokit.rest.pulls.update({ ...o, pull_number: 1, state: 'closed' });
    expect(closed.data).toMatchObject({ state: 'closed', merged: false });
    expect((await octokit.rest.pulls.list({ ...o })).data).toEqual([]);
  });

  it('pages lists with a Link header octokit follows', async () => {
    const { octokit } = await repoWithFeature();
    const o = { owner: 'alice', repo: 'app' };
    await octokit.rest.pulls.create({ ...o, head: 'feature', base: 'main', title: 'F' });
    for (const body of ['a', 'b', 'c', 'd', 'e'])
      await octokit.rest.issues.createComment({ ...o, issue_number: 1, body });
    const first = await octokit.rest.issues.listComments({ ...o, issue_number: 1, per_page: 2 });
    expect(first.data.map((c) => c.body)).toEqual(['a', 'b']);
    expect(first.headers.link).toMatch(/page=2>; rel="next".*page=3>; rel="last"/);
    const all = await octokit.paginate(octokit.rest.issues.listComments, {
      ...o,
      issue_number: 1,
      per_page: 2,
    });
    expect(all.map((c) => c.body)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('merges for real with the expected head sha: 409 on a moved head, 405 once merged', async () => {
    const { fake, octokit, work, url } = await repoWithFeature();
    const o = { owner: 'alice', repo: 'app' };
    const pr = await octokit.rest.pulls.create({
      ...o,
      head: 'feature',
      base: 'main',
      title: 'Feature',
    });
    const head = pr.data.head.sha;
    const wrong = await failure(
      octokit.rest.pulls.merge({ ...o, pull_number: 1, sha: pr.data.base.sha }),
    );
    expect([wrong.status, wrong.message]).toEqual([
      409,
      expect.stringContaining('Head branch was modified.'),
    ]);
    const merged = await octokit.rest.pulls.merge({
      ...o,
      pull_number: 1,
      sha: head,
      merge_method: 'merge',
    });
    expect(merged.data).toMatchObject({
      merged: true,
      message: 'Pull Request successfully merged',
    });
    const after = await octokit.rest.pulls.get({ ...o, pull_number: 1 });
    expect(after.data).toMatchObject({
      state: 'closed',
      merged: true,
      merge_commit_sha: merged.data.sha,
    });
    expect(after.data.merged_at).not.toBeNull();
    // The merge commit is real: two parents, base then head, in the bare repository.
    await git(work, ['fetch', '--quiet', 'origin'], { token: TOKENS.full, url });
    const parents = await git(work, ['rev-list', '--parents', '-n', '1', 'origin/main']);
    expect(parents.stdout.trim().split(' ')).toEqual([merged.data.sha, pr.data.base.sha, head]);
    expect((await fake.state()).repos[0]?.branches['main']).toBe(merged.data.sha);
    const again = await failure(octokit.rest.pulls.merge({ ...o, pull_number: 1, sha: head }));
    expect([again.status, again.message]).toEqual([
      405,
      expect.stringContaining('Pull Request is not mergeable'),
    ]);
  });

  it('answers 405 when the base moved so the pull request no longer merges', async () => {
    const { fake, octokit, work, url } = await repoWithFeature();
    const o = { owner: 'alice', repo: 'app' };
    // Both sides write README.md differently.
    await git(work, ['checkout', '--quiet', 'feature']);
    await git(work, ['rm', '--quiet', 'README.md']);
    await git(work, ['commit', '--quiet', '-m', 'feature drops README']);
    await git(work, ['push', '--quiet', 'origin', 'feature'], { token: TOKENS.full, url });
    const pr = await octokit.rest.pulls.create({ ...o, head: 'feature', base: 'main', title: 'F' });
    await octokit.rest.pulls.get({ ...o, pull_number: pr.data.number });
    await git(work, ['checkout', '--quiet', 'main']);
    await git(work, ['pull', '--quiet', 'origin', 'main'], { token: TOKENS.full, url });
    const { writeFile } = await import('node:fs/promises');
    await writeFile(`${work}/README.md`, 'changed by someone\n');
    await git(work, ['commit', '--quiet', '-am', 'base edits README']);
    await git(work, ['push', '--quiet', 'origin', 'main'], { token: TOKENS.full, url });
    const refused = await failure(
      octokit.rest.pulls.merge({ ...o, pull_number: pr.data.number, sha: pr.data.head.sha }),
    );
    expect([refused.status, refused.message]).toEqual([
      405,
      expect.stringContaining('Base branch was modified.'),
    ]);
    await octokit.rest.pulls.get({ ...o, pull_number: pr.data.number });
    const now = await octokit.rest.pulls.get({ ...o, pull_number: pr.data.number });
    expect(now.data).toMatchObject({ mergeable: false, mergeable_state: 'dirty' });
    expect((await fake.state()).repos[0]?.pulls[0]).toMatchObject({ state: 'open', merged: false });
  });

  it('refuses pull request writes to a read-only token, naming the permission', async () => {
    const { fake } = await repoWithFeature();
    const error = await failure(
      testOctokit(fake, TOKENS.readOnly).rest.pulls.create({
        owner: 'alice',
        repo: 'app',
        head: 'feature',
        base: 'main',
        title: 'x',
      }),
    );
    expect(error.status).toBe(403);
    expect(error.response?.headers['x-accepted-github-permissions']).toBe('pull_requests=write');
  });

  it('keeps a timeline of state events: a deleted head branch closes the pull request (head_ref_deleted, then closed), as GitHub does', async () => {
    const { fake, octokit } = await repoWithFeature();
    const o = { owner: 'alice', repo: 'app' };
    const pr = await octokit.rest.pulls.create({ ...o, head: 'feature', base: 'main', title: 'F' });
    const head = pr.data.head.sha;
    const events = async () =>
      (
        await octokit.paginate(octokit.rest.issues.listEventsForTimeline, {
          ...o,
          issue_number: pr.data.number,
        })
      ).map((e) => {
        const { event, actor, commit_id } = e as {
          event?: string;
          actor?: { login?: string };
          commit_id?: string | null;
        };
        return [event, actor?.login, commit_id];
      });
    await octokit.rest.pulls.update({ ...o, pull_number: 1, state: 'closed' });
    await octokit.rest.pulls.update({ ...o, pull_number: 1, state: 'open' });
    await testOctokit(fake, TOKENS.noAdmin).rest.git.deleteRef({ ...o, ref: 'heads/feature' });
    expect((await octokit.rest.pulls.get({ ...o, pull_number: 1 })).data.state).toBe('closed');
    expect(await events()).toEqual([
      ['closed', 'alice', null],
      ['reopened', 'alice', null],
      ['head_ref_deleted', 'alice', null],
      ['closed', 'alice', null],
    ]);
    // Reopening needs the branch back; GitHub keeps its commit, so the refs API restores it.
    const refused = await failure(
      octokit.rest.pulls.update({ ...o, pull_number: 1, state: 'open' }),
    );
    expect(refused.status).toBe(422);
    await octokit.rest.git.createRef({ ...o, ref: 'refs/heads/feature', sha: head });
    await octokit.rest.pulls.update({ ...o, pull_number: 1, state: 'open' });
    const merged = await octokit.rest.pulls.merge({ ...o, pull_number: 1, sha: head });
    expect((await events()).slice(4)).toEqual([
      ['reopened', 'alice', null],
      ['merged', 'alice', merged.data.sha],
      ['closed', 'alice', null],
    ]);
    const state = await octokit.request(
      'GET /repos/{owner}/{repo}/issues/{issue_number}/timeline',
      {
        ...o,
        issue_number: 1,
        per_page: 1,
      },
    );
    // The shape of GitHub's state-change-issue-event, paged with a Link header.
    expect(state.data[0]).toMatchObject({
      id: expect.any(Number) as number,
      node_id: expect.any(String) as string,
      url: expect.stringContaining('/repos/alice/app/issues/events/') as string,
      event: 'closed',
      commit_url: null,
      created_at: expect.stringMatching(/Z$/) as string,
      performed_via_github_app: null,
      state_reason: null,
    });
    expect(state.headers.link).toContain('rel="next"');
  });
});
