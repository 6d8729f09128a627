import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { maker } from '../helpers/cli.js';
import { TOKENS, git, testOctokit, useFakeGitHub } from '../helpers/github.js';
import { useTempDirs } from '../helpers/tmp.js';

/** After landing, the local repository knows GitHub's default branch is where the merge put it. */
const tempDir = useTempDirs();
const startFake = useFakeGitHub();

describe('the tracking ref after landing through GitHub', () => {
  it.each([
    ['a repository MAKER created', false],
    ['a repository MAKER cloned', true],
  ])(
    '%s: main and origin/main are the same commit, git status is not ahead',
    async (_name, existing) => {
      // Failed at main: "ahead of 'origin/main' by N commits" after a clone; no upstream after a create.
      const fake = await startFake();
      if (existing)
        await testOctokit(fake).rest.repos.createForAuthenticatedUser({
          name: 'app',
          auto_init: true,
        });
      const dir = join(await tempDir(), 'app');
      await mkdir(dir);
      const result = await maker(
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
          'alice/app',
        ],
        { GITHUB_API_URL: fake.baseUrl, GITHUB_TOKEN: TOKENS.full },
      );
      expect(result.code, result.stderr).toBe(0);
      const head = (await git(dir, ['rev-parse', 'main'])).stdout.trim();
      expect((await git(dir, ['rev-parse', 'origin/main'])).stdout.trim()).toBe(head);
      expect((await fake.state()).repos[0]?.branches['main']).toBe(head);
      const status = (await git(dir, ['status', '-sb'])).stdout.split('\n')[0];
      expect(status).toBe('## main...origin/main');
    },
    120_000,
  );
});
