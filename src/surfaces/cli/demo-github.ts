import { isLoopbackUrl } from '../../core/loopback.js';
import { randomBytes } from 'node:crypto';
import { basename, join } from 'node:path';
import { startFakeGitHub } from '../../testing/fake-github.js';
import { envValue, type Env } from '../env.js';
import { DEMO_OWNER, demoFakeHome, serveDemoFake } from '../github/demo-fake.js';
import type { GitHubAsk } from '../github/plan.js';

export { DEMO_OWNER };

/**
 * The GitHub a demo works against, never the real one: a `maker fake-github` in another process when
 * GITHUB_API_URL points at a loopback address, else a fake GitHub in this process on 127.0.0.1 with
 * a fresh token, closed when the demo ends. That one keeps its world in the workspace's
 * `.git/maker-fake-github/` (`kept`: the run's record says so), so `maker resume` can serve it again
 * after a kill.
 */
export async function demoGitHub(
  env: Env,
  dir: string,
): Promise<{
  env: Env;
  ask: GitHubAsk;
  /** The demo serves its own fake and keeps its world: a resume serves it again. */
  kept: boolean;
  sourceGitDir?: (owner: string, name: string) => string;
  said: string;
  close: () => Promise<void>;
}> {
  const name =
    basename(dir)
      .replace(/[^A-Za-z0-9._-]/g, '-')
      .replace(/\.git$/, '') || 'demo';
  const ask = { repo: { owner: DEMO_OWNER, name } };
  const api = envValue(env, 'GITHUB_API_URL');
  if (api !== '' && isLoopbackUrl(api))
    return {
      env,
      ask,
      kept: false,
      said: `SIMULATED GitHub: the local fake GitHub at ${api} (repository ${DEMO_OWNER}/${name})`,
      close: () => Promise.resolve(),
    };
  const home = demoFakeHome(dir);
  if (home === undefined) {
    // A linked worktree: no place of its own for the fake's world, which then ends with the demo.
    const token = `ghp_${randomBytes(18).toString('hex')}`;
    const fake = await startFakeGitHub({ tokens: [{ token, login: DEMO_OWNER }] });
    return {
      env: { ...env, GITHUB_API_URL: fake.baseUrl, GITHUB_TOKEN: token },
      ask,
      kept: false,
      sourceGitDir: (owner, repo) =>
        join(fake.root, owner.toLowerCase(), `${repo.toLowerCase()}.git`),
      said: `SIMULATED GitHub: a local fake GitHub at ${fake.baseUrl}, for this demo only (repository ${DEMO_OWNER}/${name})`,
      close: () => fake.close(),
    };
  }
  const { fake, token, gitDir } = await serveDemoFake(home);
  return {
    env: { ...env, GITHUB_API_URL: fake.baseUrl, GITHUB_TOKEN: token },
    ask,
    kept: true,
    sourceGitDir: gitDir,
    said: `SIMULATED GitHub: a local fake GitHub at ${fake.baseUrl}, served by this demo, its repositories kept in ${home.root} (repository ${DEMO_OWNER}/${name})`,
    close: () => fake.close(),
  };
}
