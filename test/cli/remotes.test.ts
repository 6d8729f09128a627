import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectRepository } from '../../src/adapters/git/inspect.js';
import type { Run } from '../../src/core/tree/schema.js';
import type { Target } from '../../src/app/start/preflight.js';
import { REMOTES, planRemote, remoteOfRun } from '../../src/app/start/remotes.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { TOKENS, useFakeGitHub } from '../helpers/github.js';
import { useTempDirs } from '../helpers/tmp.js';
import { readSettings } from '../../src/app/settings.js';
import { workspaceSettings } from '../helpers/settings.js';

/** The registry of remotes: which one a new run gets, and which one a saved run uses. */
const tempDir = useTempDirs();
const startFake = useFakeGitHub();

describe('remotes registry', () => {
  it.each([
    { name: 'no --github, no token', ask: {}, token: undefined, remote: 'local', problem: null },
    {
      name: '--github with a token',
      ask: { repo: { owner: 'alice', name: 'app' } },
      token: TOKENS.full,
      remote: 'github',
      problem: null,
    },
    {
      name: '--github with a revoked token',
      ask: { repo: { owner: 'alice', name: 'app' } },
      token: 'ghp_revoked',
      remote: undefined,
      problem: /token/i,
    },
  ])('a new run, $name: $remote', async ({ ask, token, remote, problem }) => {
    const fake = await startFake();
    if (token === 'ghp_revoked') fake.revokeToken(TOKENS.full);
    const dir = join(await tempDir(), 'app');
    const env = {
      GITHUB_API_URL: fake.baseUrl,
      ...(token === undefined
        ? {}
        : { GITHUB_TOKEN: token === 'ghp_revoked' ? TOKENS.full : token }),
      PATH: '/nonexistent', // no `gh` to fall back on
    };
    const planned = await planRemote(
      ask,
      (await inspectRepository(dir)) as Target,
      dir,
      readSettings(env),
    );
    expect(planned.plan?.kind.name).toBe(remote);
    if (problem === null) expect(planned.problems).toEqual([]);
    else expect(planned.problems.join('\n')).toMatch(problem);
    if (remote === 'github') {
      expect(planned.plan?.origin).toBe(`${fake.baseUrl}/alice/app.git`);
      expect(planned.plan?.token).toBe(TOKENS.full);
    }
    if (remote === 'local') {
      const made = await planned.plan?.setUp(dir, () =>
        openWorkspace(dir, true, workspaceSettings()),
      );
      expect(made?.record).toBeUndefined();
      expect(await made?.workspace.currentBranch()).toBeTruthy();
      expect((await fake.state()).repos).toEqual([]);
    }
  });

  it('a saved run uses the remote its record names', () => {
    const run = { github: undefined } as unknown as Run;
    expect(remoteOfRun(run)).toBe(REMOTES.local);
    expect(remoteOfRun({ ...run, github: {} } as unknown as Run)).toBe(REMOTES.github);
  });
});
