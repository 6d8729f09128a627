import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitAuthEnv } from '../../src/adapters/git/git-auth.js';
import { runGit } from '../../src/adapters/git/git-process.js';
import { BatchRefPublisher } from '../../src/adapters/git/ref-publisher.js';
import { git, testOctokit, TOKENS, useFakeGitHub } from '../helpers/github.js';
import { useTempDirs } from '../helpers/tmp.js';

const startFake = useFakeGitHub();
const tempDir = useTempDirs();

/** alice/app on the fake, cloned, with commits c1 and c2 on top of main, and a publisher to it. */
async function setup() {
  const fake = await startFake();
  await testOctokit(fake).rest.repos.createForAuthenticatedUser({ name: 'app', auto_init: true });
  const url = fake.gitUrl('alice', 'app');
  const dir = join(await tempDir(), 'w');
  const env = () => gitAuthEnv(url, TOKENS.full, {});
  expect((await runGit(['clone', '--quiet', url, dir], { cwd: '/', env: env() })).code).toBe(0);
  const commits: string[] = [];
  for (const name of ['c1', 'c2']) {
    await git(dir, ['commit', '--quiet', '--allow-empty', '-m', name]);
    commits.push((await git(dir, ['rev-parse', 'HEAD'])).stdout.trim());
  }
  const publisher = new BatchRefPublisher({
    cwd: dir,
    remoteUrl: url,
    env,
    secrets: [TOKENS.full],
  });
  return { fake, commits: commits as [string, string], publisher };
}

describe('the ref publisher after a refusal', () => {
  it('a branch deleted after it moved (as the message suggests) is free: pushed again', async () => {
    // Failed at main: "Branch maker/r1/n-0 was changed by someone else: … it was deleted."
    const { fake, commits, publisher } = await setup();
    const [c1, c2] = commits;
    await publisher.publish('maker/r1/n-0', c1);
    await testOctokit(fake).rest.git.deleteRef({
      owner: 'alice',
      repo: 'app',
      ref: 'heads/maker/r1/n-0',
    });
    await publisher.publish('maker/r1/n-0', c2);
    expect((await fake.state()).repos[0]?.branches['maker/r1/n-0']).toBe(c2);
    expect(publisher.leases()).toEqual({ 'maker/r1/n-0': c2 });
  });

  it("keeps git's remote: lines (a pre-receive hook's reason) in the refusal", async () => {
    // Failed at main: "The remote refused branch …: [remote rejected] (pre-receive hook declined)."
    // without the hook's words.
    const { fake, commits, publisher } = await setup();
    const hook = join(fake.root, 'alice', 'app.git', 'hooks', 'pre-receive');
    await writeFile(
      hook,
      '#!/bin/sh\necho "GH006: Protected branch policy: commits must be signed" >&2\nexit 1\n',
    );
    await chmod(hook, 0o755);
    const error = await publisher.publish('maker/r1/n-0', commits[0]).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /refused branch maker\/r1\/n-0: .*pre-receive hook declined.*The remote said: GH006: Protected branch policy: commits must be signed/s,
    );
  });
});
