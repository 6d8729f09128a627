import { mkdir } from 'node:fs/promises';
import { gitAuthEnv } from '../../adapters/git/git-auth.js';
import type { GitWorkspace } from '../../adapters/git/git-workspace.js';
import { runGit } from '../../adapters/git/git-process.js';
import { ApiCallError, redactSecrets } from '../../core/errors.js';
import { gitSaid } from '../../core/remote-said.js';
import type { GitHubRun } from '../../core/tree/schema.js';
import type { GitHubPlan } from './plan.js';

/**
 * Carries out a checked {@link GitHubPlan}: creates the repository when it is missing (private
 * unless asked), clones it into an empty workspace, or makes it the workspace's `origin` and pushes
 * the default branch (with a lease on what GitHub holds). Returns the opened workspace and the
 * run's GitHub record, for the caller to save with the run before anything else.
 */
export async function setUpGitHub(
  plan: GitHubPlan,
  dir: string,
  open: () => Promise<GitWorkspace>,
  checkpoint?: (step: string) => void,
): Promise<{ workspace: GitWorkspace; record: GitHubRun; said: string }> {
  const repo =
    plan.existing ??
    (await plan.host.ensureRepository({
      ...plan.ref,
      private: !plan.public,
      autoInit: false,
      description: 'Made with MAKER',
    }));
  checkpoint?.('github:repository-ensured');
  const env = gitAuthEnv(repo.cloneUrl, plan.token, {});
  const git = async (args: string[], cwd: string) => {
    const run = await runGit(args, { cwd, env, timeoutMs: 600_000 });
    if (run.code !== 0)
      throw new ApiCallError(
        'git',
        redactSecrets(
          `git ${args[0] ?? ''} with ${repo.cloneUrl} failed: ${gitSaid(run.stderr, 2)}`,
          [plan.token],
        ),
      );
    return run.stdout;
  };
  if (plan.action === 'clone') {
    // A clone into the empty directory (which may already hold MAKER's lock file).
    const branch = repo.defaultBranch;
    await mkdir(dir, { recursive: true });
    await git(['init', '--quiet', `--initial-branch=${branch}`], dir);
    await git(['remote', 'add', 'origin', repo.cloneUrl], dir);
    await git(
      ['fetch', '--quiet', 'origin', `refs/heads/${branch}:refs/remotes/origin/${branch}`],
      dir,
    );
    await git(['checkout', '--quiet', '-B', branch, '--track', `origin/${branch}`], dir);
  }
  const workspace = await open();
  if ((await workspace.remoteUrl('origin')) === undefined)
    await git(['remote', 'add', 'origin', repo.cloneUrl], dir);
  const branch = await workspace.currentBranch();
  const head = (await workspace.resolve(branch)) as string;
  if (plan.action === 'push' && head !== plan.remoteHead)
    await git(
      [
        'push',
        '--quiet',
        `--force-with-lease=refs/heads/${branch}:${plan.remoteHead ?? ''}`,
        repo.cloneUrl,
        `${head}:refs/heads/${branch}`,
      ],
      dir,
    );
  const record: GitHubRun = {
    owner: repo.owner,
    name: repo.name,
    id: repo.id,
    url: repo.htmlUrl,
    cloneUrl: repo.cloneUrl,
    apiUrl: plan.apiUrl,
    created: repo.created,
    defaultBranch: plan.remoteHead === undefined ? branch : repo.defaultBranch,
    keepCandidates: plan.keepCandidates,
    leases: {},
  };
  const how = repo.created
    ? `created ${repo.private ? 'private' : 'public'} repository ${repo.htmlUrl}`
    : plan.action === 'clone'
      ? `cloned ${repo.htmlUrl}`
      : `using ${repo.htmlUrl}${plan.source === 'origin' ? ' (origin, with the GitHub token)' : ''}`;
  return { workspace, record, said: how };
}
