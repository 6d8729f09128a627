import { isLoopbackUrl } from '../../core/loopback.js';
import { randomBytes } from 'node:crypto';
import { basename, join } from 'node:path';
import type { StartIntent } from '../../core/tree/schema.js';
import { startFakeGitHub } from '../../offline/fake-github.js';
import type { Settings } from '../../app/settings.js';
import {
  DEMO_OWNER,
  demoFakeHome,
  repointDemoOrigin,
  serveDemoFake,
} from '../../app/github/demo-fake.js';
import type { GitHubAsk } from '../../app/github/plan.js';
import type { ServedGitHub } from './commands/run-start.js';

export { DEMO_OWNER };

/** A demo's GitHub: what its run's intent records before it is served, and how it is served. */
export interface DemoGitHub {
  readonly ask: GitHubAsk;
  readonly intent: NonNullable<StartIntent['github']>;
  readonly serve: () => Promise<ServedGitHub>;
}

/** The demo repository's name for a directory. */
export function demoRepoName(dir: string): string {
  return (
    basename(dir)
      .replace(/[^A-Za-z0-9._-]/g, '-')
      .replace(/\.git$/, '') || 'demo'
  );
}

/**
 * The GitHub a demo works against, never the real one: a `maker fake-github` in another process when
 * GITHUB_API_URL points at a loopback address, else a fake GitHub in this process on 127.0.0.1 with
 * a fresh token, closed when the demo ends. That one keeps its world in the workspace's
 * `.git/maker-fake-github/` (`kept`: the run's record says so), so `maker resume` can serve it again
 * after a kill. Nothing is started until `serve` (called once the run's intent is saved).
 */
export function demoGitHub(settings: Settings, dir: string): DemoGitHub {
  const name = demoRepoName(dir);
  const ask = { repo: { owner: DEMO_OWNER, name } };
  const intent = { owner: DEMO_OWNER, name, public: false, keepCandidates: false };
  const api = settings.github.apiUrl;
  if (api !== '' && isLoopbackUrl(api))
    return {
      ask,
      intent: { ...intent, apiUrl: api },
      serve: () =>
        Promise.resolve({
          github: {},
          ask,
          kept: false,
          said: `SIMULATED GitHub: the local fake GitHub at ${api} (repository ${DEMO_OWNER}/${name})`,
          close: () => Promise.resolve(),
        }),
    };
  const home = demoFakeHome(dir);
  if (home === undefined)
    // A linked worktree: no place of its own for the fake's world, which then ends with the demo.
    return {
      ask,
      intent,
      serve: async () => {
        const token = `ghp_${randomBytes(18).toString('hex')}`;
        const fake = await startFakeGitHub({ tokens: [{ token, login: DEMO_OWNER }] });
        return {
          github: { apiUrl: fake.baseUrl, token },
          ask,
          kept: false,
          sourceGitDir: (owner, repo) =>
            join(fake.root, owner.toLowerCase(), `${repo.toLowerCase()}.git`),
          said: `SIMULATED GitHub: a local fake GitHub at ${fake.baseUrl}, for this demo only (repository ${DEMO_OWNER}/${name})`,
          close: () => fake.close(),
        };
      },
    };
  return {
    ask,
    intent: { ...intent, demoFake: true },
    serve: async () => {
      const { fake, token, gitDir } = await serveDemoFake(home, undefined, settings.env);
      try {
        await repointDemoOrigin(dir, `${fake.baseUrl}/${DEMO_OWNER}/${name}.git`);
      } catch (error) {
        await fake.close();
        throw error;
      }
      return {
        github: { apiUrl: fake.baseUrl, token },
        ask,
        kept: true,
        sourceGitDir: gitDir,
        said: `SIMULATED GitHub: a local fake GitHub at ${fake.baseUrl}, served by this demo, its repositories kept in ${home.root} (repository ${DEMO_OWNER}/${name})`,
        close: () => fake.close(),
      };
    },
  };
}
