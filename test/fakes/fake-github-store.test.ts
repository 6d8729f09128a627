import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  startFakeGitHub,
  type FakeGitHub,
  type FakeGitHubOptions,
} from '../../src/offline/fake-github.js';
import { DEFAULT_FAKE_OPTIONS, git, testOctokit, TOKENS } from '../helpers/github.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

const running = new Set<FakeGitHub>();
afterEach(async () => {
  await Promise.all([...running].map((f) => f.close()));
  running.clear();
});

/** A fake per call; a test closes each before restarting it (then afterEach skips it). */
async function startFake(options: Partial<FakeGitHubOptions>): Promise<FakeGitHub> {
  const fake = await startFakeGitHub({ ...DEFAULT_FAKE_OPTIONS, ...options });
  running.add(fake);
  return { ...fake, close: () => (running.delete(fake), fake.close()) };
}

describe('fake GitHub: a world kept in a store', () => {
  it('a fake restarted on the same store and root has the same repositories, ids, pulls, comments and branches; tokens are not kept', async () => {
    const root = await tempDir();
    const store = join(root, 'world.json');
    const first = await startFake({ root, store });
    const api = testOctokit(first);
    const created = await api.rest.repos.createForAuthenticatedUser({
      name: 'app',
      auto_init: true,
    });
    const url = first.gitUrl('alice', 'app');
    const work = await tempDir();
    expect(
      (await git(work, ['clone', '--quiet', url, 'w'], { token: TOKENS.full, url })).code,
    ).toBe(0);
    const w = join(work, 'w');
    await git(w, ['checkout', '--quiet', '-b', 'feature']);
    await git(w, ['commit', '--quiet', '--allow-empty', '-m', 'feature']);
    const pushed = await git(w, ['push', '--quiet', 'origin', 'feature'], {
      token: TOKENS.full,
      url,
    });
    expect(pushed.code).toBe(0);
    const pr = await api.rest.pulls.create({
      owner: 'alice',
      repo: 'app',
      head: 'feature',
      base: 'main',
      title: 'A feature',
      body: 'the body',
    });
    await api.rest.issues.createComment({
      owner: 'alice',
      repo: 'app',
      issue_number: 1,
      body: 'hi',
    });
    const before = await first.state();
    await first.close();
    // Nothing secret on disk.
    expect(await readFile(store, 'utf8')).not.toContain(TOKENS.full);

    const token = `ghp_${'Z'.repeat(36)}`;
    const second = await startFake({ root, store, tokens: [{ token, login: 'alice' }] });
    expect(await second.state()).toEqual(before);
    const again = testOctokit(second, token);
    const repo = await again.rest.repos.get({ owner: 'alice', repo: 'app' });
    expect(repo.data.id).toBe(created.data.id);
    const pull = await again.rest.pulls.get({ owner: 'alice', repo: 'app', pull_number: 1 });
    expect(pull.data).toMatchObject({ id: pr.data.id, state: 'open', body: 'the body' });
    // The old token is unknown to the restarted fake.
    await expect(
      testOctokit(second, TOKENS.full).rest.repos.get({ owner: 'alice', repo: 'app' }),
    ).rejects.toMatchObject({ status: 401 });
    // It goes on from where it was: the next pull is number 2, merging is a real merge.
    const merged = await again.rest.pulls.merge({ owner: 'alice', repo: 'app', pull_number: 1 });
    expect(merged.data.merged).toBe(true);
    await second.close();
    const third = await startFake({ root, store, tokens: [{ token, login: 'alice' }] });
    const [repoState] = (await third.state()).repos;
    expect(repoState?.pulls[0]).toMatchObject({ merged: true, mergeCommitSha: merged.data.sha });
    expect(repoState?.branches['main']).toBe(merged.data.sha);
    await third.close();
  });

  it('refuses a port that is taken (an error, not a crash), so a caller can choose another', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    // Its own temporary directory, so what the fake makes there (and leaves) is seen alone.
    const tmp = await tempDir();
    const saved = process.env['TMPDIR'];
    process.env['TMPDIR'] = tmp;
    try {
      await expect(startFakeGitHub({ tokens: [], port })).rejects.toMatchObject({
        code: 'EADDRINUSE',
      });
      expect(tmpdir()).toBe(tmp);
      // The directory it made for its repositories is not left behind.
      expect(await readdir(tmp)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env['TMPDIR'];
      else process.env['TMPDIR'] = saved;
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});
