import { readdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { gitAuthEnv } from '../../adapters/git/git-auth.js';
import { runGit } from '../../adapters/git/git-process.js';
import { GitHubError } from '../../adapters/github/errors.js';
import type { GitHubHost } from '../../adapters/github/github-host.js';
import { gitHubApiUrl } from '../../adapters/github/api-url.js';
import { resolveGitHubToken } from '../../adapters/github/token.js';
import { MakerError } from '../../core/errors.js';
import type { RepoRef, RepositoryInfo } from '../../ports/repo-host.js';
import { knowSecret, type Settings } from '../settings.js';
import type { Target } from '../start/target.js';
import { repoOfOrigin, sameRepo } from './target.js';
import { MAKER_FILE } from '../../core/paths.js';

/** What a person asked of GitHub for a run. */
export interface GitHubAsk {
  /** `--github owner/name`; absent: `origin`, when it is on GitHub and a token is present. */
  readonly repo?: RepoRef | undefined;
  /** Create it public (default private). */
  readonly public?: boolean | undefined;
  readonly keepCandidates?: boolean | undefined;
}

/** Everything checked, nothing done yet: how the run's GitHub repository will be set up. */
export interface GitHubPlan {
  readonly ref: RepoRef;
  /** Where the choice came from, to tell the person. */
  readonly source: 'flag' | 'origin';
  /** Never saved, never printed. */
  readonly token: string;
  readonly apiUrl: string;
  readonly host: GitHubHost;
  /** The repository when it exists (else it is created). */
  readonly existing: RepositoryInfo | undefined;
  /** Its default branch's commit, when it has one. */
  readonly remoteHead: string | undefined;
  /** `clone`: the workspace is empty and the repository has history; `push`: the workspace's branch goes up. */
  readonly action: 'clone' | 'push' | 'none';
  readonly public: boolean;
  readonly keepCandidates: boolean;
}

/**
 * Checks, without changing anything, that the run can use GitHub: the token (resolved, accepted,
 * allowed to write or to create), the repository (reachable, or creatable), and that the
 * workspace's history and the repository's agree. Returns every problem at once; no plan when the
 * run composes locally only (no `--github`, and `origin` is not on GitHub or there is no token).
 * `rateLimitedUntil`: GitHub's rate limit stopped the checks (until then).
 */
export async function planGitHub(
  ask: GitHubAsk,
  target: Target,
  dir: string,
  settings: Pick<Settings, 'github' | 'env' | 'secrets'>,
): Promise<GitHubPlanAnswer> {
  let apiUrl: string;
  try {
    apiUrl = gitHubApiUrl(settings.github.apiUrl);
  } catch (error) {
    return ask.repo === undefined ? { problems: [] } : { problems: [messageOf(error)] };
  }
  const origin = target.kind === 'repository' ? target.origin : undefined;
  const fromOrigin = repoOfOrigin(origin, apiUrl);
  if (ask.repo === undefined && fromOrigin === undefined) return { problems: [] };
  let token: string;
  try {
    token = (await githubToken(settings, apiUrl)).token;
  } catch (error) {
    return withoutToken(error, ask, fromOrigin);
  }
  const ref = ask.repo ?? fromOrigin;
  if (ref === undefined) return { problems: [] };
  const full = `${ref.owner}/${ref.name}`;
  const problems: string[] = [];
  if (origin !== undefined && (fromOrigin === undefined || !sameRepo(fromOrigin, ref)))
    problems.push(
      `${dir} already has an origin (${origin}) that is not ${full}: use that repository (--github with its owner/name), or a workspace without an origin.`,
    );
  // Loaded here, when a plan needs GitHub: commands that never do never load Octokit.
  const { createGitHubHost } = await import('../../adapters/github/github-host.js');
  const host = createGitHubHost({ token, baseUrl: apiUrl });
  let existing: InspectedRepository | undefined;
  try {
    existing = await inspectRepository(host, ref, ask.public, problems);
  } catch (error) {
    return stoppedBy(error, problems);
  }
  if (existing !== undefined && !existing.canPush)
    problems.push(
      `The GitHub token may not push to ${full}. It needs the Contents: Read and write and Pull requests: Read and write permissions (classic token: the repo scope).`,
    );
  const remoteHead =
    existing === undefined ? undefined : await headOf(existing, token, dir, problems);
  const action = await chooseAction(target, dir, full, existing, remoteHead, problems);
  const plan: GitHubPlan = {
    ref,
    source: ask.repo === undefined ? 'origin' : 'flag',
    token,
    apiUrl,
    host,
    existing,
    remoteHead,
    action,
    public: ask.public === true,
    keepCandidates: ask.keepCandidates === true,
  };
  return problems.length > 0 ? { problems } : { plan, problems };
}

/** The repository, and what the token's user may do there. */
type InspectedRepository = NonNullable<Awaited<ReturnType<GitHubHost['inspectRepository']>>>;

/** What {@link planGitHub} found: a plan when nothing stands in the way, else the problems. */
export interface GitHubPlanAnswer {
  plan?: GitHubPlan;
  problems: string[];
  notice?: string;
  rateLimitedUntil?: Date;
}

/**
 * No token: a problem when `--github` asked for GitHub; else, with an `origin` on GitHub, a notice
 * that the run composes locally only.
 */
function withoutToken(
  error: unknown,
  ask: GitHubAsk,
  fromOrigin: RepoRef | undefined,
): GitHubPlanAnswer {
  if (ask.repo !== undefined) return { problems: [messageOf(error)] };
  return fromOrigin === undefined
    ? { problems: [] }
    : {
        problems: [],
        notice: `origin is the GitHub repository ${fromOrigin.owner}/${fromOrigin.name}, but there is no GitHub token: the run composes locally only. Set GITHUB_TOKEN (or pass --github) to publish its branches and open a pull request.`,
      };
}

/**
 * The repository `ref` when it exists; when it does not, a problem in `problems` if the token
 * cannot create it (its owner is neither the token's user nor an organisation it can see, or a
 * classic token lacks the scope). Throws what GitHub answered when it could not be asked.
 */
async function inspectRepository(
  host: GitHubHost,
  ref: RepoRef,
  asPublic: boolean | undefined,
  problems: string[],
): Promise<InspectedRepository | undefined> {
  const full = `${ref.owner}/${ref.name}`;
  const who = await host.whoAmI();
  const existing = await host.inspectRepository(ref);
  if (
    existing === undefined &&
    ref.owner.toLowerCase() !== who.login.toLowerCase() &&
    !(await host.isOrganisation(ref.owner))
  )
    problems.push(
      `GitHub shows no repository ${full} to the token, and it cannot be created: ${ref.owner} is neither the token's user (${who.login}) nor an organisation the token can see. Check the owner and name, and that the token can see the repository (a fine-grained token lists the repositories it may use under Repository access).`,
    );
  else if (existing === undefined && who.scopes !== undefined && !canCreate(who.scopes, asPublic))
    problems.push(
      `The GitHub token cannot create ${full}: a classic token needs the ${asPublic === true ? 'public_repo or repo' : 'repo'} scope (it has ${who.scopes.join(', ') || 'none'}). Create the repository yourself, or use a token with Administration: Read and write.`,
    );
  return existing;
}

/** The checks stopped by `error`: the problems so far and its message. */
function stoppedBy(error: unknown, problems: readonly string[]): GitHubPlanAnswer {
  return {
    problems: [...problems, messageOf(error)],
    // GitHub's rate limit, not the person's command: said apart (its own exit status).
    ...(error instanceof GitHubError && error.kind === 'rate-limited' && error.resumeAt
      ? { rateLimitedUntil: error.resumeAt }
      : {}),
  };
}

function canCreate(scopes: readonly string[], asPublic: boolean | undefined): boolean {
  return scopes.includes('repo') || (asPublic === true && scopes.includes('public_repo'));
}

/** The repository's default branch head (`git ls-remote`), or undefined when it has none. */
async function headOf(
  repo: RepositoryInfo,
  token: string,
  dir: string,
  problems: string[],
): Promise<string | undefined> {
  const run = await runGit(['ls-remote', repo.cloneUrl, `refs/heads/${repo.defaultBranch}`], {
    cwd: await existingParent(dir),
    env: gitAuthEnv(repo.cloneUrl, token, {}),
    timeoutMs: 60_000,
  });
  if (run.code !== 0) {
    problems.push(
      `git could not read ${repo.owner}/${repo.name} (${repo.cloneUrl}): ${run.stderr.trim().split('\n').at(-1) ?? ''}`.replaceAll(
        token,
        '***',
      ),
    );
    return undefined;
  }
  return run.stdout.split('\t')[0]?.trim() || undefined;
}

async function chooseAction(
  target: Target,
  dir: string,
  full: string,
  existing: RepositoryInfo | undefined,
  remoteHead: string | undefined,
  problems: string[],
): Promise<GitHubPlan['action']> {
  // MAKER's own files (the lock, and the state of a start a kill interrupted) are not content.
  const empty =
    target.kind === 'missing' ||
    (target.kind === 'directory' &&
      (await readdir(dir)).filter((name) => !MAKER_FILE.test(name)).length === 0);
  if (remoteHead === undefined) return 'push';
  if (empty) return 'clone';
  if (target.kind !== 'repository') {
    problems.push(
      `${dir} holds files but no git repository, and ${full} on GitHub has history: use an empty directory (MAKER clones ${full} into it), or clone it yourself.`,
    );
    return 'none';
  }
  const branch = existing?.defaultBranch ?? 'main';
  if (target.branch !== branch) {
    problems.push(
      `${full}'s default branch is ${branch}, but ${dir} has ${target.branch ?? 'a detached HEAD'} checked out: check out ${branch} (git switch ${branch}).`,
    );
    return 'none';
  }
  const git = (args: string[]) => runGit(args, { cwd: dir });
  const local = (await git(['rev-parse', '--verify', '--quiet', 'HEAD'])).stdout.trim();
  if (local === remoteHead) return 'none';
  const known = (await git(['cat-file', '-e', `${remoteHead}^{commit}`])).code === 0;
  if (known && (await git(['merge-base', '--is-ancestor', remoteHead, local])).code === 0)
    return 'push';
  problems.push(
    known
      ? `${dir}'s ${branch} is behind ${full}'s (GitHub has commits it lacks): bring them in first (git pull), then run again.`
      : `${dir} and ${full} on GitHub have different histories (GitHub's ${branch} is at ${remoteHead.slice(0, 12)}, which ${dir} does not contain): MAKER will not mix them. Use an empty directory (MAKER clones ${full} into it), another repository name, or git pull first if this is a clone.`,
  );
  return 'none';
}

/** `dir`, or its nearest existing parent (git needs a working directory that exists). */
async function existingParent(dir: string): Promise<string> {
  for (let d = dir; ; d = dirname(d)) {
    if (
      await stat(d).then(
        (s) => s.isDirectory(),
        () => false,
      )
    )
      return d;
    if (dirname(d) === d) return d;
  }
}

function messageOf(error: unknown): string {
  return error instanceof GitHubError || error instanceof MakerError || error instanceof Error
    ? error.message
    : String(error);
}

/**
 * The token for the API at `baseUrl`: the settings' `GITHUB_TOKEN`, else `gh auth token`'s, which
 * joins the process's keys before it is returned (it is in no environment variable the keys were
 * read from).
 */
export async function githubToken(
  settings: Pick<Settings, 'github' | 'env' | 'secrets'>,
  baseUrl: string,
): ReturnType<typeof resolveGitHubToken> {
  const found = await resolveGitHubToken({
    given: settings.github.token,
    env: settings.env,
    baseUrl,
  });
  knowSecret(settings, found.token);
  return found;
}
