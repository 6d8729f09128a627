import { isLoopbackUrl } from '../../core/loopback.js';
import type { GitWorkspace } from '../../adapters/git/git-workspace.js';
import { githubToken } from './plan.js';
import type { Run } from '../../core/tree/schema.js';
import type { RunRemote } from '../../ports/remote.js';
import type { Settings } from '../settings.js';
import { demoFakeProblems } from './demo-fake.js';
import { gitHubRemote } from './remote.js';

/**
 * The engine's `remote` for a workspace: each run with a GitHub record gets one {@link RunRemote}
 * (made once, so the engine and the worker share its publisher); runs without one get none.
 */
export function remotesFor(
  workspace: GitWorkspace,
  token: string | undefined | (() => string | undefined),
  persist: () => Promise<void>,
): (run: Run) => RunRemote | undefined {
  const made = new Map<string, RunRemote>();
  return (run) => {
    const key = typeof token === 'function' ? token() : token;
    if (run.github === undefined || key === undefined) return undefined;
    let remote = made.get(run.id);
    if (remote === undefined) {
      remote = gitHubRemote(run.github, workspace, key, persist, { runId: run.id });
      made.set(run.id, remote);
    }
    return remote;
  };
}

/**
 * For resuming a run that publishes to GitHub: the token, or the problem (the run cannot go on
 * without it, and nothing is changed).
 */
export async function tokenForRun(
  run: Run,
  settings: Settings,
  dir: string,
): Promise<{ token?: string; problems: string[] }> {
  if (run.github === undefined) return { problems: [] };
  // The demo's own fake, served again from its kept world with a token of its own (no env token).
  if (run.github.demoFake === true) return { problems: demoFakeProblems(run, dir) };
  if (isLoopbackUrl(run.github.apiUrl) && !(await answers(run.github.apiUrl)))
    return {
      problems: [
        `Run ${run.id} publishes to a local fake GitHub at ${run.github.apiUrl}, which is not running: a \`maker demo\` serves one for itself, and it ended with that process, so the run's repository and pull request are gone. Start a new \`maker demo\`. To kill a demo and resume it, serve the fake GitHub from its own process: \`maker fake-github --port 8765\` in one terminal (it prints its URL and token), then, in another, \`export GITHUB_API_URL=<its URL> GITHUB_TOKEN=<its token>\` and \`maker demo\`; \`maker resume\` there goes on against it.`,
      ],
    };
  try {
    return {
      token: (await githubToken(settings, run.github.apiUrl)).token,
      problems: [],
    };
  } catch (error) {
    return {
      problems: [
        `Run ${run.id} publishes to the GitHub repository ${run.github.url}: ${(error as Error).message}`,
      ],
    };
  }
}

/** Whether anything answers HTTP at the URL (any status) within a couple of seconds. */
async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(2000) });
    return true;
  } catch {
    return false;
  }
}
