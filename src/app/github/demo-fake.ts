import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runGit } from '../../adapters/git/git-process.js';
import { ApiCallError, ConfigError } from '../../core/errors.js';
import { isLoopbackUrl } from '../../core/loopback.js';
import type { GitHubRun, Run } from '../../core/tree/schema.js';
import { startFakeGitHub, type FakeGitHub } from '../../offline/fake-github.js';

/** The login the demo's repositories belong to (also `maker fake-github`'s default user). */
import { DEMO_OWNER } from './demo-owner.js';
import { githubRequestSeam } from '../wiring/seams.js';

export { DEMO_OWNER };

/**
 * Where a demo's own fake GitHub keeps its world: `<dir>/.git/maker-fake-github/` holds the bare
 * repositories and `world.json` (repositories, pull requests, comments; never a token). Undefined
 * when `<dir>/.git` is not a directory (a linked worktree): such a demo's fake is not kept.
 */
export function demoFakeHome(dir: string): { root: string; store: string } | undefined {
  const gitDir = join(dir, '.git');
  if (existsSync(gitDir) && !statSync(gitDir).isDirectory()) return undefined;
  const root = join(gitDir, 'maker-fake-github');
  return { root, store: join(root, 'world.json') };
}

/** A fake GitHub serving a demo's kept world, with a token of its own for this process. */
export interface DemoFake {
  readonly fake: FakeGitHub;
  readonly token: string;
  /** The bare repository of `owner/name` (what the fake Jules reads). */
  readonly gitDir: (owner: string, name: string) => string;
}

/** Starts the demo's fake on `home` (at `port` when given and free, else any free port). */
export async function serveDemoFake(
  home: { root: string; store: string },
  port?: number,
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<DemoFake> {
  const token = `ghp_${randomBytes(18).toString('hex')}`;
  const onRequest = githubRequestSeam(env);
  const start = (p?: number) =>
    startFakeGitHub({
      tokens: [{ token, login: DEMO_OWNER }],
      root: home.root,
      store: home.store,
      ...(p === undefined ? {} : { port: p }),
      ...(onRequest === undefined ? {} : { onRequest }),
    });
  let fake: FakeGitHub;
  try {
    fake = await start(port);
  } catch (error) {
    if (port === undefined || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    fake = await start();
  }
  return {
    fake,
    token,
    gitDir: (owner, name) => join(home.root, owner.toLowerCase(), `${name.toLowerCase()}.git`),
  };
}

/**
 * For resuming a run of `maker demo` on its own fake GitHub: nothing when its kept world is there,
 * else why the run cannot go on (read only: nothing is changed).
 */
export function demoFakeProblems(run: Run, dir: string): string[] {
  const home = demoFakeHome(dir);
  if (home !== undefined && existsSync(home.store)) return [];
  return [
    `Run ${run.id} is a \`maker demo\` on its own local fake GitHub, whose world (repositories, pull requests, the bare repository) was kept in ${home?.root ?? join(dir, '.git', 'maker-fake-github')}, and it is gone: the run's repository and pull request cannot be restored. Start a new \`maker demo\`.`,
  ];
}

/**
 * Restarts a demo run's fake GitHub from its kept world, on the run's recorded port when it is
 * free. On another port, the run's URLs (API, web, clone, pull request) and the workspace's
 * `origin` are moved to it; `github` is then the run's record with the new URLs, to be saved.
 */
export async function resumeDemoFake(
  run: Run & { github: GitHubRun },
  dir: string,
): Promise<DemoFake & { github?: GitHubRun }> {
  const home = demoFakeHome(dir);
  if (home === undefined) throw new ConfigError(demoFakeProblems(run, dir)[0] as string);
  const recorded = new URL(run.github.apiUrl);
  const served = await serveDemoFake(home, Number(recorded.port));
  const from = recorded.origin;
  const to = served.fake.baseUrl;
  const move = (url: string) => (url.startsWith(from) ? `${to}${url.slice(from.length)}` : url);
  const github: GitHubRun | undefined =
    from === to
      ? undefined
      : {
          ...run.github,
          apiUrl: move(run.github.apiUrl),
          url: move(run.github.url),
          cloneUrl: move(run.github.cloneUrl),
          ...(run.github.pullRequest === undefined
            ? {}
            : {
                pullRequest: { ...run.github.pullRequest, url: move(run.github.pullRequest.url) },
              }),
        };
  // `origin` follows the fake (also when an earlier resume moved it and was killed before saving).
  const cloneUrl = github?.cloneUrl ?? run.github.cloneUrl;
  try {
    await repointDemoOrigin(dir, cloneUrl);
  } catch (error) {
    await served.fake.close();
    throw error;
  }
  return github === undefined ? served : { ...served, github };
}

/**
 * An `origin` a killed demo left pointing at its own fake GitHub, whose port died with it (or that
 * an earlier resume moved and was killed before saving): a loopback URL with the same owner and
 * name is the demo's own, and is moved to `cloneUrl`, the fake served now.
 */
export async function repointDemoOrigin(dir: string, cloneUrl: string): Promise<void> {
  const got = await runGit(['remote', 'get-url', 'origin'], { cwd: dir }).catch(() => undefined);
  const origin = got?.code === 0 ? got.stdout.trim() : '';
  if (origin === '' || origin === cloneUrl || !isLoopbackUrl(origin)) return;
  // GitHub's owner and repository names are case-insensitive.
  const path = (url: string) => {
    try {
      return new URL(url).pathname.toLowerCase();
    } catch {
      return undefined;
    }
  };
  if (path(origin) !== path(cloneUrl)) return;
  const set = await runGit(['remote', 'set-url', 'origin', cloneUrl], { cwd: dir });
  if (set.code !== 0)
    throw new ApiCallError('git', `git remote set-url origin failed: ${set.stderr.trim()}`);
}
