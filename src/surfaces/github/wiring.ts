import type { GitWorkspace } from '../../adapters/git/git-workspace.js';
import { resolveGitHubToken } from '../../adapters/github/token.js';
import type { Run } from '../../core/tree/schema.js';
import type { RunRemote } from '../../ports/remote.js';
import type { Env } from '../env.js';
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
  env: Env,
): Promise<{ token?: string; problems: string[] }> {
  if (run.github === undefined) return { problems: [] };
  try {
    return {
      token: (await resolveGitHubToken({ env, baseUrl: run.github.apiUrl })).token,
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
