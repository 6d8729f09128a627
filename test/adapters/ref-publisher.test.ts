import { readdir, readFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitAuthEnv } from '../../src/adapters/git/git-auth.js';
import { runGit, type GitRunner } from '../../src/adapters/git/git-process.js';
import { BatchRefPublisher } from '../../src/adapters/git/ref-publisher.js';
import { ApiCallError, RefMovedError } from '../../src/core/errors.js';
import type { FakeGitHub } from '../../src/offline/fake-github.js';
import { git, testOctokit, TOKENS, useFakeGitHub } from '../helpers/github.js';
import { useTempDirs } from '../helpers/tmp.js';

const startFake = useFakeGitHub();
const tempDir = useTempDirs();

/** alice/app on the fake, cloned (authenticated through the environment only), with commits c1..c3 on top of main. */
async function setup() {
  const fake = await startFake();
  await testOctokit(fake).rest.repos.createForAuthenticatedUser({ name: 'app', auto_init: true });
  const url = fake.gitUrl('alice', 'app');
  const dir = join(await tempDir(), 'w');
  const calls: string[][] = [];
  const recording: GitRunner = (args, options) => {
    calls.push([...args]);
    return runGit(args, options);
  };
  const env = () => gitAuthEnv(url, TOKENS.full, {});
  expect((await recording(['clone', '--quiet', url, dir], { cwd: '/', env: env() })).code).toBe(0);
  const commits: string[] = [];
  for (const name of ['c1', 'c2', 'c3']) {
    await git(dir, ['commit', '--quiet', '--allow-empty', '-m', name]);
    commits.push((await git(dir, ['rev-parse', 'HEAD'])).stdout.trim());
  }
  const saved: Record<string, string>[] = [];
  const publisher = (leases?: Record<string, string>, token: string = TOKENS.full) =>
    new BatchRefPublisher({
      cwd: dir,
      remoteUrl: url,
      env: () => gitAuthEnv(url, token, {}),
      git: recording,
      secrets: [token],
      ...(leases === undefined ? {} : { leases }),
      onLeases: (l) => void saved.push({ ...l }),
    });
  return { fake, url, dir, calls, env, commits, saved, publisher, recording };
}

const branches = async (fake: FakeGitHub) => (await fake.state()).repos[0]?.branches ?? {};
const pushes = (calls: string[][]) => calls.filter((c) => c[0] === 'push').length;

describe('BatchRefPublisher', () => {
  it('publishes the branches asked for at one moment in one push, each once', async () => {
    const { fake, calls, commits, saved, publisher } = await setup();
    const p = publisher();
    const [c1, c2, c3] = commits as [string, string, string];
    await Promise.all([
      p.publish('maker/r1/n-root', c1),
      p.publish('maker/r1/n-0', c2),
      p.publish('maker/r1/n-1', c3),
      p.publish('maker/r1/n-0', c2),
    ]);
    expect(pushes(calls)).toBe(1);
    const pushed = calls.find((c) => c[0] === 'push') ?? [];
    expect(pushed.filter((a) => a.startsWith('--force-with-lease=')).sort()).toEqual([
      '--force-with-lease=refs/heads/maker/r1/n-0:',
      '--force-with-lease=refs/heads/maker/r1/n-1:',
      '--force-with-lease=refs/heads/maker/r1/n-root:',
    ]);
    expect(await branches(fake)).toMatchObject({
      'maker/r1/n-root': c1,
      'maker/r1/n-0': c2,
      'maker/r1/n-1': c3,
    });
    const leases = { 'maker/r1/n-root': c1, 'maker/r1/n-0': c2, 'maker/r1/n-1': c3 };
    expect(p.leases()).toEqual(leases);
    expect(saved.at(-1)).toEqual(leases);
    // Already there: no process at all.
    await p.publish('maker/r1/n-0', c2);
    expect(pushes(calls)).toBe(1);
    // A move that is not a fast-forward is fine on a branch maker owns (the lease protects others' work).
    await Promise.all([p.publish('maker/r1/n-0', c1), p.publish('maker/r1/n-1', c1)]);
    expect(pushes(calls)).toBe(2);
    expect(await branches(fake)).toMatchObject({ 'maker/r1/n-0': c1, 'maker/r1/n-1': c1 });
    // Requests while a push is in flight form the next batch, leased on its result.
    const first = p.publish('maker/r1/n-0', c3);
    await new Promise((r) => setImmediate(r));
    await Promise.all([first, p.publish('maker/r1/n-0', c2), p.publish('maker/r1/n-1', c2)]);
    expect(pushes(calls)).toBe(4);
    expect(await branches(fake)).toMatchObject({ 'maker/r1/n-0': c2, 'maker/r1/n-1': c2 });
  });

  it('never overwrites a branch someone else moved: that ref alone rejects, the others land', async () => {
    const { fake, calls, commits, publisher } = await setup();
    const [c1, c2, c3] = commits as [string, string, string];
    const p = publisher();
    await Promise.all([p.publish('maker/r1/n-0', c1), p.publish('maker/r1/n-1', c1)]);
    const foreign = await fake.foreignCommit({
      owner: 'alice',
      repo: 'app',
      branch: 'maker/r1/n-0',
    });
    const results = await Promise.allSettled([
      p.publish('maker/r1/n-0', c2),
      p.publish('maker/r1/n-1', c3),
    ]);
    expect(results[1]).toEqual({ status: 'fulfilled', value: undefined });
    const rejected = (results[0] as PromiseRejectedResult).reason as RefMovedError;
    expect(rejected).toBeInstanceOf(RefMovedError);
    expect(rejected).toMatchObject({
      code: 'ref-moved',
      branch: 'maker/r1/n-0',
      expected: c1,
      actual: foreign,
    });
    expect(await branches(fake)).toMatchObject({ 'maker/r1/n-0': foreign, 'maker/r1/n-1': c3 });
    expect(p.leases()).toMatchObject({ 'maker/r1/n-0': c1, 'maker/r1/n-1': c3 });
    expect(pushes(calls)).toBe(2);
    expect(calls.filter((c) => c[0] === 'ls-remote')).toHaveLength(1);
    // A branch someone else created before maker ever pushed it is not taken over either.
    await fake.foreignCommit({ owner: 'alice', repo: 'app', branch: 'maker/r1/n-2' });
    await expect(p.publish('maker/r1/n-2', c1)).rejects.toMatchObject({
      code: 'ref-moved',
      expected: null,
    });
  });

  it('counts a branch already where maker wants it as published, even without a lease', async () => {
    const { fake, commits, publisher } = await setup();
    const [c1, c2] = commits as [string, string];
    await publisher().publish('maker/r1/n-0', c1);
    // A resumed run that lost its leases, and one whose lease is older than the remote.
    const fresh = publisher();
    await fresh.publish('maker/r1/n-0', c1);
    expect(fresh.leases()).toEqual({ 'maker/r1/n-0': c1 });
    await publisher({ 'maker/r1/n-0': c2 }).publish('maker/r1/n-0', c1);
    expect((await branches(fake))['maker/r1/n-0']).toBe(c1);
  });

  it('a push whose reply was lost, though it landed, is not taken for someone else’s change', async () => {
    const { fake, url, dir, commits, recording } = await setup();
    const [c1, c2] = commits as [string, string];
    let lose = 1;
    // The push reaches GitHub and updates the branch; the connection drops before git hears back.
    const lossy: GitRunner = async (args, options) => {
      const run = await recording(args, options);
      if (args[0] !== 'push' || lose-- <= 0) return run;
      return {
        ...run,
        code: 128,
        stdout: '',
        stderr:
          'error: RPC failed; curl 52 Empty reply from server\nfatal: the remote end hung up unexpectedly',
      };
    };
    const p = new BatchRefPublisher({
      cwd: dir,
      remoteUrl: url,
      env: () => gitAuthEnv(url, TOKENS.full, {}),
      git: lossy,
    });
    await expect(p.publish('maker/r1/n-0', c1)).rejects.toMatchObject({ isRetryable: true });
    expect((await branches(fake))['maker/r1/n-0']).toBe(c1);
    // The branch moves on: the commit GitHub holds is the one maker tried, so it is maker's own.
    await p.publish('maker/r1/n-0', c2);
    expect((await branches(fake))['maker/r1/n-0']).toBe(c2);
    expect(p.leases()).toEqual({ 'maker/r1/n-0': c2 });
    // Someone else's commit is still refused.
    const foreign = await fake.foreignCommit({
      owner: 'alice',
      repo: 'app',
      branch: 'maker/r1/n-0',
    });
    await expect(p.publish('maker/r1/n-0', c1)).rejects.toMatchObject({
      code: 'ref-moved',
      actual: foreign,
    });
  });

  it('batches deletions with leases; one already gone counts as deleted; an unknown branch is left alone', async () => {
    const { fake, calls, commits, publisher } = await setup();
    const [c1] = commits as [string];
    const p = publisher();
    await Promise.all(['a', 'b', 'c'].map((b) => p.publish(`maker/r1/n-${b}`, c1)));
    await testOctokit(fake).rest.git.deleteRef({
      owner: 'alice',
      repo: 'app',
      ref: 'heads/maker/r1/n-c',
    });
    await Promise.all([
      p.remove('maker/r1/n-a'),
      p.remove('maker/r1/n-b'),
      p.remove('maker/r1/n-c'),
      p.remove('maker/r1/never'),
    ]);
    expect(pushes(calls)).toBe(2);
    expect(Object.keys(await branches(fake))).toEqual(['main']);
    expect(p.leases()).toEqual({});
  });

  it.each([
    ['a revoked token', 'revoked', /the token cannot write there.*Contents: Read and write/],
    ['a read-only token', TOKENS.readOnly, /the token cannot write there/],
  ])(
    'rejects every ref of the batch with %s, naming the permission and never the token',
    async (_name, which, message) => {
      const { fake, commits, publisher } = await setup();
      const token = which === 'revoked' ? TOKENS.other : which;
      if (which === 'revoked') fake.revokeToken(TOKENS.other);
      const p = publisher(undefined, token);
      const results = await Promise.allSettled([
        p.publish('maker/r1/n-0', commits[0] as string),
        p.publish('maker/r1/n-1', commits[1] as string),
      ]);
      for (const result of results) {
        expect(result.status).toBe('rejected');
        const error = (result as PromiseRejectedResult).reason as ApiCallError;
        expect(error).toBeInstanceOf(ApiCallError);
        expect(error.message).toMatch(message);
        expect(error.message).not.toContain(token);
      }
      expect(Object.keys(await branches(fake))).toEqual(['main']);
    },
  );

  it('keeps the token out of .git, remote URLs and command lines after clone, fetch and push', async () => {
    const { dir, url, calls, commits, publisher, recording, env } = await setup();
    await publisher().publish('maker/r1/n-0', commits[0] as string);
    expect((await recording(['fetch', '--quiet', 'origin'], { cwd: dir, env: env() })).code).toBe(
      0,
    );
    expect(
      (await recording(['pull', '--quiet', 'origin', 'main'], { cwd: dir, env: env() })).code,
    ).toBe(0);
    expect(calls.map((c) => c[0])).toEqual(['clone', 'push', 'fetch', 'pull']);
    const basic = Buffer.from(`x-access-token:${TOKENS.full}`).toString('base64');
    for (const secret of [TOKENS.full, basic]) {
      expect(JSON.stringify(calls)).not.toContain(secret);
      for (const file of await filesUnder(join(dir, '.git')))
        expect((await readFile(file)).includes(secret), file).toBe(false);
    }
    expect((await git(dir, ['remote', 'get-url', 'origin'])).stdout.trim()).toBe(url);
  });

  it('stops a push that hangs, failing its refs with a retryable error', async () => {
    const { dir, commits } = await setup();
    // A server that accepts connections and never answers.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/alice/app.git`;
      const p = new BatchRefPublisher({
        cwd: dir,
        remoteUrl: url,
        env: () => gitAuthEnv(url, TOKENS.full, {}),
        timeoutMs: 500,
        secrets: [TOKENS.full],
      });
      const error = await p.publish('maker/r1/n-0', commits[0] as string).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiCallError);
      expect(error).toMatchObject({ isRetryable: true });
      expect((error as Error).message).toMatch(/git push to .* failed: .*timed out/);
      expect(p.leases()).toEqual({});
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('refuses what is not a branch name or a commit id', async () => {
    const { publisher } = await setup();
    const p = publisher();
    await expect(p.publish('-delete', 'a'.repeat(40))).rejects.toThrow(/Not a branch name/);
    await expect(p.publish('a..b', 'a'.repeat(40))).rejects.toThrow(/Not a branch name/);
    await expect(p.publish('ok', 'HEAD')).rejects.toThrow(/Not a commit id/);
  });
});

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}
