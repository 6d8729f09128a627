import type { GitWorkspace } from '../../adapters/git/git-workspace.js';
import type { GitHubRun, Run } from '../../core/tree/schema.js';
import type { RunRemote } from '../../ports/remote.js';
import type { Settings } from '../settings.js';
import { planGitHub, type GitHubAsk } from '../github/plan.js';
import { setUpGitHub } from '../github/setup.js';
import { remotesFor, tokenForRun } from '../github/wiring.js';
import type { Target } from './target.js';

export type RemoteName = 'local' | 'github';

/** A remote chosen for a new run, checked and not yet set up. */
export interface RemotePlan {
  readonly kind: RemoteKind;
  /** The URL `origin` will have, for the worker's checks (a Jules source must be on GitHub). */
  readonly origin?: string | undefined;
  /** The credential the run's remote uses (never saved, never printed). */
  readonly token?: string | undefined;
  /** The GitHub repository it will use (recorded in the start's intent before anything is made). */
  readonly github?: {
    readonly owner: string;
    readonly name: string;
    readonly apiUrl: string;
    readonly public: boolean;
    readonly keepCandidates: boolean;
    /** It does not exist yet: the start creates it. */
    readonly create: boolean;
  };
  /**
   * Creates or opens what the run needs (the workspace; for GitHub, the repository and `origin`).
   * `record` is saved with the run before anything else; `said` tells the person what was done.
   */
  setUp(
    dir: string,
    open: () => Promise<GitWorkspace>,
    checkpoint?: (step: string) => void,
  ): Promise<{ workspace: GitWorkspace; record?: GitHubRun; said?: string }>;
}

/**
 * One kind of remote, everything the surfaces need to know about it: what it is, the settings it
 * reads, its checks before a run starts or resumes (all before any side effect, every problem at
 * once), its setting up, and the engine's `remote` for its runs. Surfaces look remotes up here
 * ({@link planRemote}, {@link remoteOfRun}) instead of branching on GitHub in several files.
 */
export interface RemoteKind {
  readonly name: RemoteName;
  readonly summary: string;
  readonly settings: readonly { readonly env: string; readonly purpose: string }[];
  /**
   * For a new run: the plan when a run with `ask` uses this remote, and every problem
   * (`rateLimitedUntil`: the service's rate limit stopped the checks, until then).
   */
  plan(
    ask: GitHubAsk,
    target: Target,
    dir: string,
    settings: Settings,
  ): Promise<{ plan?: RemotePlan; problems: string[]; notice?: string; rateLimitedUntil?: Date }>;
  /** For resuming a run that uses it: its credential, or every problem (nothing is changed). */
  resumeChecks(
    run: Run,
    settings: Settings,
    dir: string,
  ): Promise<{ token?: string; problems: string[] }>;
  /** The engine's remote for runs of this kind, with the credential `token()` gives. */
  engineRemote(
    workspace: GitWorkspace,
    token: () => string | undefined,
    persist: () => Promise<void>,
  ): (run: Run) => RunRemote | undefined;
}

const local: RemoteKind = {
  name: 'local',
  summary: 'the run composes and lands in the local repository only',
  settings: [],
  plan: (_ask, target) =>
    Promise.resolve({
      plan: {
        kind: local,
        origin: target.kind === 'repository' ? target.origin : undefined,
        setUp: async (_dir, open) => ({ workspace: await open() }),
      },
      problems: [],
    }),
  resumeChecks: () => Promise.resolve({ problems: [] }),
  engineRemote: () => () => undefined,
};

const github: RemoteKind = {
  name: 'github',
  summary:
    'a GitHub repository (--github owner/name, or a GitHub origin with a token): node branches pushed, the result landed through a pull request',
  settings: [
    { env: 'GITHUB_TOKEN', purpose: 'the token (else `gh auth token`)' },
    { env: 'GITHUB_API_URL', purpose: 'the REST API (default https://api.github.com)' },
  ],
  plan: async (ask, target, dir, settings) => {
    const { plan, problems, notice, rateLimitedUntil } = await planGitHub(
      ask,
      target,
      dir,
      settings,
    );
    const api = plan === undefined ? undefined : new URL(plan.apiUrl);
    return {
      ...(plan === undefined || api === undefined
        ? {}
        : {
            plan: {
              kind: github,
              origin: `${api.host === 'api.github.com' ? 'https://github.com' : api.origin}/${plan.ref.owner}/${plan.ref.name}.git`,
              token: plan.token,
              github: {
                ...plan.ref,
                apiUrl: plan.apiUrl,
                public: plan.public,
                keepCandidates: plan.keepCandidates,
                create: plan.existing === undefined,
              },
              setUp: async (d, open, checkpoint) => {
                const made = await setUpGitHub(plan, d, open, checkpoint);
                return { ...made, said: `GitHub: ${made.said}` };
              },
            },
          }),
      problems,
      ...(notice === undefined ? {} : { notice }),
      ...(rateLimitedUntil === undefined ? {} : { rateLimitedUntil }),
    };
  },
  resumeChecks: (run, settings, dir) => tokenForRun(run, settings, dir),
  engineRemote: (workspace, token, persist) => remotesFor(workspace, token, persist),
};

/** Every remote, by name. */
export const REMOTES: Readonly<Record<RemoteName, RemoteKind>> = { local, github };

/**
 * A new run's remote: GitHub when asked (or when `origin` is on GitHub and a token is present),
 * else the local repository. Checks only; every problem of the chosen remote is returned.
 */
export async function planRemote(
  ask: GitHubAsk,
  target: Target,
  dir: string,
  settings: Settings,
): Promise<{ plan?: RemotePlan; problems: string[]; notice?: string; rateLimitedUntil?: Date }> {
  const onGitHub = await REMOTES.github.plan(ask, target, dir, settings);
  if (onGitHub.plan !== undefined || onGitHub.problems.length > 0) return onGitHub;
  const locally = await REMOTES.local.plan(ask, target, dir, settings);
  return { ...locally, ...(onGitHub.notice === undefined ? {} : { notice: onGitHub.notice }) };
}

/** The remote a saved run uses. */
export function remoteOfRun(run: Run): RemoteKind {
  return run.github === undefined ? REMOTES.local : REMOTES.github;
}

/** The engine's `remote`: each run's, from its remote kind. */
export function engineRemotes(
  workspace: GitWorkspace,
  token: string | undefined | (() => string | undefined),
  persist: () => Promise<void>,
): (run: Run) => RunRemote | undefined {
  const key = typeof token === 'function' ? token : () => token;
  const made = new Map(
    Object.values(REMOTES).map((r) => [r.name, r.engineRemote(workspace, key, persist)]),
  );
  return (run) => made.get(remoteOfRun(run).name)?.(run);
}
