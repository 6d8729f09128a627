import { gitAuthEnv } from '../../adapters/git/git-auth.js';
import type { GitWorkspace } from '../../adapters/git/git-workspace.js';
import { runGit } from '../../adapters/git/git-process.js';
import { BatchRefPublisher } from '../../adapters/git/ref-publisher.js';
import { createGitHubHost } from '../../adapters/github/github-host.js';
import type { RateLimitWait } from '../../adapters/github/octokit.js';
import { ApiCallError, redactSecrets } from '../../core/errors.js';
import type { GitHubRun } from '../../core/tree/schema.js';
import type { RunRemote } from '../../ports/remote.js';
import type { WaitReporter } from '../../ports/waits.js';

/**
 * The {@link RunRemote} of a run's GitHub record: octokit (rate-limit waits reported through the
 * engine's wait port), one batched publisher whose leases are saved with the run before its pushes
 * resolve, and authenticated fetches. The token lives in this process only.
 */
export function gitHubRemote(
  github: GitHubRun,
  workspace: GitWorkspace,
  token: string,
  persist: () => Promise<void>,
  options: { throttle?: false; runId?: string } = {},
): RunRemote {
  let report: WaitReporter | undefined;
  const host = createGitHubHost({
    token,
    baseUrl: github.apiUrl,
    ...(options.throttle === false ? { throttle: false as const } : {}),
    onWait: (wait) => reportWait(report, wait),
  });
  return {
    repo: { owner: github.owner, name: github.name, htmlUrl: github.url },
    host,
    publisher: leasedPublisher(github, workspace, token, persist, options.runId),
    trackRemoteHead: (branch, sha) => trackRemoteHead(github, workspace, branch, sha),
    watchWaits: (reporter) => {
      report = reporter;
    },
    fetchBranch: (branch) => fetchBranch(github, workspace, token, branch),
    fetchCommit: (branch, sha) => fetchCommit(github, workspace, token, branch, sha),
  };
}

/** A rate-limit wait, told to the engine's reporter (when one watches) and ended when it is over. */
function reportWait(report: WaitReporter | undefined, wait: RateLimitWait): void {
  const end = report?.({
    service: 'github',
    reason: `GitHub's ${wait.reason === 'secondary-rate-limit' ? 'secondary rate limit' : 'rate limit'}: waiting`,
    until: wait.until,
  });
  if (end !== undefined) setTimeout(end, Math.max(0, wait.until.getTime() - Date.now())).unref();
}

/**
 * The run's one batched publisher, made once its leases are known (reconciled first when the
 * process resumes run `runId`); every new lease set is saved with the run (`persist`).
 */
function leasedPublisher(
  github: GitHubRun,
  workspace: GitWorkspace,
  token: string,
  persist: () => Promise<void>,
  runId: string | undefined,
): RunRemote['publisher'] {
  const inner = (async () => {
    const leases =
      runId === undefined ? github.leases : await reconciledLeases(github, workspace, token, runId);
    return new BatchRefPublisher({
      cwd: workspace.dir,
      remoteUrl: github.cloneUrl,
      env: () => gitAuthEnv(github.cloneUrl, token, {}),
      leases,
      onLeases: async (next) => {
        github.leases = { ...next };
        await persist();
      },
      secrets: [token],
    });
  })();
  return {
    publish: async (branch, sha) => (await inner).publish(branch, sha),
    remove: async (branch) => (await inner).remove(branch),
    leases: () => github.leases,
  };
}

/**
 * The saved leases, corrected once per process: a push that landed just before a crash, whose
 * lease was not saved yet, left the branch at a commit of MAKER's own (known here, an ancestor of
 * the local branch). That is taken as the lease; anything else stays someone else's change.
 */
async function reconciledLeases(
  github: GitHubRun,
  workspace: GitWorkspace,
  token: string,
  runId: string,
): Promise<Record<string, string>> {
  const leases = { ...github.leases };
  const remote = await runGit(['ls-remote', github.cloneUrl, `refs/heads/maker/${runId}/*`], {
    cwd: workspace.dir,
    env: gitAuthEnv(github.cloneUrl, token, {}),
    timeoutMs: 120_000,
  });
  if (remote.code !== 0) return leases;
  for (const line of remote.stdout.split('\n')) {
    const [sha, ref] = line.split('\t');
    if (sha === undefined || ref === undefined || sha === '') continue;
    const branch = ref.replace(/^refs\/heads\//, '');
    if (leases[branch] === sha) continue;
    const local = await workspace.resolve(branch);
    const ours =
      local === undefined
        ? (await runGit(['cat-file', '-e', `${sha}^{commit}`], { cwd: workspace.dir })).code === 0
        : (await runGit(['merge-base', '--is-ancestor', sha, local], { cwd: workspace.dir }))
            .code === 0;
    if (ours) leases[branch] = sha;
  }
  return leases;
}

/** When `origin` is the run's repository: its remote-tracking `branch` set to `sha`, and `branch` made to track it. */
async function trackRemoteHead(
  github: GitHubRun,
  workspace: GitWorkspace,
  branch: string,
  sha: string,
): Promise<void> {
  const git = (args: string[]) => runGit(args, { cwd: workspace.dir });
  if ((await git(['remote', 'get-url', 'origin'])).stdout.trim() !== github.cloneUrl) return;
  await git(['update-ref', `refs/remotes/origin/${branch}`, sha]);
  if ((await git(['config', '--get', `branch.${branch}.remote`])).code !== 0)
    await git(['branch', '--quiet', `--set-upstream-to=origin/${branch}`, branch]);
}

/** `git fetch` of the repository's `branch` into FETCH_HEAD. */
function fetchFromGitHub(
  github: GitHubRun,
  workspace: GitWorkspace,
  token: string,
  branch: string,
) {
  return runGit(['fetch', '--quiet', '--no-tags', github.cloneUrl, `refs/heads/${branch}`], {
    cwd: workspace.dir,
    env: gitAuthEnv(github.cloneUrl, token, {}),
    timeoutMs: 600_000,
  });
}

/** The head of the repository's `branch`, fetched; undefined when GitHub has no such branch. */
async function fetchBranch(
  github: GitHubRun,
  workspace: GitWorkspace,
  token: string,
  branch: string,
): Promise<string | undefined> {
  const run = await fetchFromGitHub(github, workspace, token, branch);
  if (run.code !== 0) {
    if (/couldn't find remote ref/i.test(run.stderr)) return undefined;
    throw new ApiCallError(
      'git',
      redactSecrets(
        `Could not fetch ${branch} from ${github.cloneUrl}: ${run.stderr.trim().split('\n').at(-1) ?? ''}. maker resume tries again.`,
        [token],
      ),
      { isRetryable: true },
    );
  }
  return (await workspace.resolve('FETCH_HEAD')) ?? undefined;
}

/** Commit `sha` made present locally (fetched with the repository's `branch` when it is not). */
async function fetchCommit(
  github: GitHubRun,
  workspace: GitWorkspace,
  token: string,
  branch: string,
  sha: string,
): Promise<void> {
  if ((await workspace.resolve(sha)) === sha) return;
  const run = await fetchFromGitHub(github, workspace, token, branch);
  if (run.code !== 0 || (await workspace.resolve(sha)) !== sha)
    throw new ApiCallError(
      'git',
      redactSecrets(
        `Could not fetch ${sha.slice(0, 12)} from ${github.cloneUrl} (${branch}): ${run.stderr.trim().split('\n').at(-1) ?? 'not on that branch'}. maker resume tries again.`,
        [token],
      ),
      { isRetryable: true },
    );
}
