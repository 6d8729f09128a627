import { describe, expect, it } from 'vitest';
import { createGitHubHost } from '../../src/adapters/github/github-host.js';
import { whyClosed } from '../../src/adapters/github/head-deleted.js';
import type { FakeGitHub } from '../../src/offline/fake-github.js';
import { git, testOctokit, TOKENS, useFakeGitHub } from '../helpers/github.js';
import { useTempDirs } from '../helpers/tmp.js';

const startFake = useFakeGitHub();
const tempDir = useTempDirs();

const timeline = (...events: string[]) => events.map((event) => ({ event }));

describe('whyClosed', () => {
  it.each([
    ['head_ref_deleted, then closed', ['head_ref_deleted', 'closed'], 'head-deleted'],
    [
      'comments and commits in between are not state events',
      ['committed', 'head_ref_deleted', 'commented', 'closed'],
      'head-deleted',
    ],
    ['closed by a person', ['closed'], 'someone'],
    ['closed by a person, its branch deleted after', ['closed', 'head_ref_deleted'], 'someone'],
    [
      'deleted, reopened once restored, then closed by a person',
      ['head_ref_deleted', 'closed', 'head_ref_restored', 'reopened', 'closed'],
      'someone',
    ],
    [
      'closed by a person, reopened, then closed by a deletion',
      ['closed', 'reopened', 'head_ref_deleted', 'closed'],
      'head-deleted',
    ],
  ] as const)('%s: %s', (_name, events, why) => {
    expect(whyClosed(timeline(...events))).toBe(why);
  });
});

/** alice/app with a pull request from `feature` (one commit ahead of main): its head commit. */
async function pullFromFeature(fake: FakeGitHub) {
  const octokit = testOctokit(fake);
  await octokit.rest.repos.createForAuthenticatedUser({ name: 'app', auto_init: true });
  const dir = await tempDir();
  const url = fake.gitUrl('alice', 'app');
  await git(dir, ['clone', '--quiet', url, 'w'], { token: TOKENS.full, url });
  const work = `${dir}/w`;
  await git(work, ['checkout', '--quiet', '-b', 'feature']);
  await git(work, ['commit', '--quiet', '--allow-empty', '-m', 'feature work']);
  await git(work, ['push', '--quiet', 'origin', 'feature'], { token: TOKENS.full, url });
  await octokit.rest.pulls.create({
    owner: 'alice',
    repo: 'app',
    head: 'feature',
    base: 'main',
    title: 'F',
  });
  return (await git(work, ['rev-parse', 'HEAD'])).stdout.trim();
}

describe('GitHubHost: a head branch deleted on GitHub', () => {
  it('tells a deletion from a person closing, and restores the branch where it was', async () => {
    const fake = await startFake();
    const head = await pullFromFeature(fake);
    const host = createGitHubHost({ token: TOKENS.full, baseUrl: fake.baseUrl, throttle: false });
    const repo = { owner: 'alice', name: 'app' };
    await testOctokit(fake).rest.git.deleteRef({
      owner: 'alice',
      repo: 'app',
      ref: 'heads/feature',
    });
    expect(await host.whyClosed(repo, 1)).toBe('head-deleted');
    await host.restoreBranch(repo, 'feature', head);
    // Restoring a branch that exists leaves it.
    await host.restoreBranch(repo, 'feature', head);
    expect((await fake.state()).repos[0]?.branches['feature']).toBe(head);
    expect((await host.updatePullRequest(repo, 1, { state: 'open' })).state).toBe('open');
    expect((await host.updatePullRequest(repo, 1, { state: 'closed' })).state).toBe('closed');
    expect(await host.whyClosed(repo, 1)).toBe('someone');
  });

  it('a commit GitHub no longer has is said plainly, with what to do', async () => {
    const fake = await startFake();
    await pullFromFeature(fake);
    const host = createGitHubHost({ token: TOKENS.full, baseUrl: fake.baseUrl, throttle: false });
    await expect(
      host.restoreBranch({ owner: 'alice', name: 'app' }, 'gone', 'f'.repeat(40)),
    ).rejects.toThrow(
      `GitHub no longer has commit ${'f'.repeat(12)} to restore branch gone in alice/app: push the branch there yourself (git push origin gone), then run maker resume.`,
    );
  });
});
