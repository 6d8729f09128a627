import { isLoopbackUrl } from '../../core/loopback.js';
import { randomBytes } from 'node:crypto';
import { basename, join } from 'node:path';
import { startFakeGitHub } from '../../testing/fake-github.js';
import { envValue, type Env } from '../env.js';
import type { GitHubAsk } from '../github/plan.js';

/** The login the demo's repositories belong to (also `maker fake-github`'s default user). */
export const DEMO_OWNER = 'maker-demo';

/**
 * The GitHub a demo works against, never the real one: a `maker fake-github` in another process when
 * GITHUB_API_URL points at a loopback address (so a killed demo can be resumed against it), else a
 * fake GitHub in this process on 127.0.0.1, with a fresh token, closed when the demo ends.
 */
export async function demoGitHub(
  env: Env,
  dir: string,
): Promise<{
  env: Env;
  ask: GitHubAsk;
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
      said: `SIMULATED GitHub: the local fake GitHub at ${api} (repository ${DEMO_OWNER}/${name})`,
      close: () => Promise.resolve(),
    };
  const token = `ghp_${randomBytes(18).toString('hex')}`;
  const fake = await startFakeGitHub({ tokens: [{ token, login: DEMO_OWNER }] });
  return {
    env: { ...env, GITHUB_API_URL: fake.baseUrl, GITHUB_TOKEN: token },
    ask,
    sourceGitDir: (owner, repo) =>
      join(fake.root, owner.toLowerCase(), `${repo.toLowerCase()}.git`),
    said: `SIMULATED GitHub: a local fake GitHub at ${fake.baseUrl}, for this demo only (repository ${DEMO_OWNER}/${name})`,
    close: () => fake.close(),
  };
}
