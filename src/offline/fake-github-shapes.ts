import type { CommitInfo } from './fake-github-git.js';
import type {
  FakeComment,
  FakeGitHubWorld,
  FakePull,
  FakePullEvent,
  FakeRepo,
} from './fake-github-world.js';

/**
 * GitHub's JSON shapes (the fields MAKER reads and the usual ones around them), built from the
 * fake's state. `base` is the fake's origin: the API and the web pages both live there.
 */

export function userJson(world: FakeGitHubWorld, base: string, login: string) {
  const id = world.userId(login);
  return {
    login,
    id,
    node_id: nodeId('U', id),
    avatar_url: `${base}/avatars/${login}`,
    gravatar_id: '',
    url: `${base}/users/${login}`,
    html_url: `${base}/${login}`,
    repos_url: `${base}/users/${login}/repos`,
    type: world.isOrg(login) ? 'Organization' : 'User',
    site_admin: false,
  };
}

export function repoJson(
  world: FakeGitHubWorld,
  base: string,
  repo: FakeRepo,
  permissions?: { admin: boolean; push: boolean; pull: boolean },
) {
  const full = `${repo.owner}/${repo.name}`;
  const api = `${base}/repos/${full}`;
  return {
    id: repo.id,
    node_id: nodeId('R', repo.id),
    name: repo.name,
    full_name: full,
    private: repo.private,
    owner: userJson(world, base, repo.owner),
    html_url: `${base}/${full}`,
    description: repo.description,
    fork: false,
    url: api,
    pulls_url: `${api}/pulls{/number}`,
    git_refs_url: `${api}/git/refs{/sha}`,
    compare_url: `${api}/compare/{base}...{head}`,
    git_url: `git://127.0.0.1/${full}.git`,
    ssh_url: `git@127.0.0.1:${full}.git`,
    clone_url: `${base}/${full}.git`,
    created_at: repo.createdAt,
    updated_at: repo.updatedAt,
    pushed_at: repo.pushedAt,
    size: 0,
    visibility: repo.private ? 'private' : 'public',
    default_branch: repo.defaultBranch,
    archived: false,
    disabled: false,
    allow_merge_commit: true,
    allow_squash_merge: true,
    allow_rebase_merge: true,
    delete_branch_on_merge: false,
    ...(permissions === undefined
      ? {}
      : {
          permissions: { ...permissions, maintain: permissions.admin, triage: permissions.push },
        }),
  };
}

export function refJson(base: string, repo: FakeRepo, ref: string, sha: string) {
  const api = `${base}/repos/${repo.owner}/${repo.name}`;
  return {
    ref,
    node_id: nodeId('REF', ref.length),
    url: `${api}/git/${ref}`,
    object: { sha, type: 'commit', url: `${api}/git/commits/${sha}` },
  };
}

export function commitJson(base: string, repo: FakeRepo, c: CommitInfo) {
  const api = `${base}/repos/${repo.owner}/${repo.name}`;
  const html = `${base}/${repo.owner}/${repo.name}`;
  return {
    sha: c.sha,
    node_id: nodeId('C', parseInt(c.sha.slice(0, 8), 16)),
    url: `${api}/commits/${c.sha}`,
    html_url: `${html}/commit/${c.sha}`,
    commit: {
      author: c.author,
      committer: c.committer,
      message: c.message,
      tree: { sha: c.tree, url: `${api}/git/trees/${c.tree}` },
      url: `${api}/git/commits/${c.sha}`,
      comment_count: 0,
    },
    author: null,
    committer: null,
    parents: c.parents.map((sha) => ({
      sha,
      url: `${api}/commits/${sha}`,
      html_url: `${html}/commit/${sha}`,
    })),
  };
}

/**
 * A pull request. The list route's items (`full: false`) carry neither `merged` nor `mergeable`
 * (nor the counts); `GET …/pulls/{n}` does.
 */
export function pullJson(
  world: FakeGitHubWorld,
  base: string,
  pr: FakePull,
  full: boolean,
  counts?: { comments: number; commits: number },
) {
  const repo = pr.repo;
  const api = `${base}/repos/${repo.owner}/${repo.name}`;
  const html = `${base}/${repo.owner}/${repo.name}`;
  const repoShape = repoJson(world, base, repo);
  const end = (ref: string, sha: string) => ({
    label: `${repo.owner}:${ref}`,
    ref,
    sha,
    user: userJson(world, base, repo.owner),
    repo: repoShape,
  });
  const summary = {
    url: `${api}/pulls/${pr.number}`,
    id: pr.id,
    node_id: nodeId('PR', pr.id),
    html_url: `${html}/pull/${pr.number}`,
    diff_url: `${html}/pull/${pr.number}.diff`,
    patch_url: `${html}/pull/${pr.number}.patch`,
    issue_url: `${api}/issues/${pr.number}`,
    comments_url: `${api}/issues/${pr.number}/comments`,
    number: pr.number,
    state: pr.state,
    locked: false,
    title: pr.title,
    user: userJson(world, base, pr.user),
    body: pr.body,
    labels: [],
    milestone: null,
    created_at: pr.createdAt,
    updated_at: pr.updatedAt,
    closed_at: pr.closedAt,
    merged_at: pr.mergedAt,
    merge_commit_sha: pr.mergeCommitSha,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    head: end(pr.headRef, pr.headSha),
    base: end(pr.baseRef, pr.baseSha),
    author_association: 'OWNER',
    auto_merge: null,
    draft: pr.draft,
  };
  if (!full) return summary;
  const computed = pr.state === 'open' ? pr.mergeable?.value : undefined;
  return {
    ...summary,
    merged: pr.merged,
    mergeable: computed ?? null,
    rebaseable: computed ?? null,
    mergeable_state:
      computed === undefined ? 'unknown' : computed ? (pr.draft ? 'draft' : 'clean') : 'dirty',
    merged_by: pr.mergedBy === null ? null : userJson(world, base, pr.mergedBy),
    comments: counts?.comments ?? 0,
    review_comments: 0,
    maintainer_can_modify: false,
    commits: counts?.commits ?? 0,
    additions: 0,
    deletions: 0,
    changed_files: 0,
  };
}

export function commentJson(world: FakeGitHubWorld, base: string, c: FakeComment) {
  const api = `${base}/repos/${c.repo.owner}/${c.repo.name}`;
  return {
    id: c.id,
    node_id: nodeId('IC', c.id),
    url: `${api}/issues/comments/${c.id}`,
    html_url: `${base}/${c.repo.owner}/${c.repo.name}/pull/${c.issue}#issuecomment-${c.id}`,
    issue_url: `${api}/issues/${c.issue}`,
    body: c.body,
    user: userJson(world, base, c.user),
    created_at: c.createdAt,
    updated_at: c.createdAt,
    author_association: 'OWNER',
  };
}

function nodeId(kind: string, id: number): string {
  return `${kind}_kgDO${Buffer.from(String(id)).toString('base64url')}`;
}

/** A timeline state event, as GitHub's `state-change-issue-event` schema has it. */
export function timelineEventJson(
  world: FakeGitHubWorld,
  base: string,
  pr: FakePull,
  e: FakePullEvent,
) {
  const repo = `${base}/repos/${pr.repo.owner}/${pr.repo.name}`;
  return {
    id: e.id,
    node_id: nodeId('E', e.id),
    url: `${repo}/issues/events/${e.id}`,
    actor: userJson(world, base, e.actor),
    event: e.event,
    commit_id: e.commitId,
    commit_url: e.commitId === null ? null : `${repo}/commits/${e.commitId}`,
    created_at: e.createdAt,
    performed_via_github_app: null,
    ...(e.event === 'closed' || e.event === 'reopened' ? { state_reason: null } : {}),
  };
}
