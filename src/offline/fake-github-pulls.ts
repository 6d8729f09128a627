import {
  branchTip,
  commitTree,
  countCommits,
  isAncestor,
  mergeTree,
  updateRef,
} from './fake-github-git.js';
import {
  isReply,
  refreshPull,
  repoFor,
  stringField,
  syncPulls,
  type Route,
  type RouteContext,
} from './fake-github-route.js';
import { commentJson, pullJson, timelineEventJson } from './fake-github-shapes.js';
import type { FakePull } from './fake-github-world.js';
import {
  errorReply,
  json,
  notFound,
  paginate,
  validationReply,
  type Reply,
} from './github-http.js';

/** The fake's pull request and issue comment routes, merges made for real in the bare repository. */

const REPO = '^/repos/([^/]+)/([^/]+)';
const DOCS_MERGE = 'https://docs.github.com/rest/pulls/pulls#merge-a-pull-request';

export const pullRoutes: readonly Route[] = [
  { method: 'POST', pattern: new RegExp(`${REPO}/pulls$`), handle: createPull },
  { method: 'GET', pattern: new RegExp(`${REPO}/pulls$`), handle: listPulls },
  { method: 'GET', pattern: new RegExp(`${REPO}/pulls/(\\d+)$`), handle: getPull },
  { method: 'PATCH', pattern: new RegExp(`${REPO}/pulls/(\\d+)$`), handle: updatePull },
  { method: 'PUT', pattern: new RegExp(`${REPO}/pulls/(\\d+)/merge$`), handle: mergePull },
  { method: 'POST', pattern: new RegExp(`${REPO}/issues/(\\d+)/comments$`), handle: createComment },
  { method: 'GET', pattern: new RegExp(`${REPO}/issues/(\\d+)/comments$`), handle: listComments },
  { method: 'GET', pattern: new RegExp(`${REPO}/issues/(\\d+)/timeline$`), handle: listTimeline },
];

async function createPull(ctx: RouteContext): Promise<Reply> {
  const repo = repoFor(ctx, 'pull_requests', 'write');
  if (isReply(repo)) return repo;
  const missing = ['title', 'head', 'base'].filter((f) => stringField(ctx.body, f) === undefined);
  if (missing.length > 0)
    return validationReply(
      missing.map((field) => ({ resource: 'PullRequest', code: 'missing_field', field })),
    );
  const rawHead = stringField(ctx.body, 'head') as string;
  const baseRef = stringField(ctx.body, 'base') as string;
  const colon = rawHead.indexOf(':');
  const headOwner = colon === -1 ? repo.owner : rawHead.slice(0, colon);
  const headRef = colon === -1 ? rawHead : rawHead.slice(colon + 1);
  const headSha =
    headOwner.toLowerCase() === repo.owner.toLowerCase()
      ? await branchTip(repo.gitDir, headRef)
      : undefined;
  const baseSha = await branchTip(repo.gitDir, baseRef);
  const invalid = [
    ...(headSha === undefined ? ['head'] : []),
    ...(baseSha === undefined ? ['base'] : []),
  ];
  if (headSha === undefined || baseSha === undefined)
    return validationReply(
      invalid.map((field) => ({ resource: 'PullRequest', code: 'invalid', field })),
    );
  if (await isAncestor(repo.gitDir, headSha, baseSha))
    return validationReply([
      {
        resource: 'PullRequest',
        code: 'custom',
        message: `No commits between ${baseRef} and ${headRef}`,
      },
    ]);
  // Checked after every await, so concurrent creates for one head and base make one pull request.
  const existing = ctx.world
    .pullsOf(repo)
    .find((p) => p.state === 'open' && p.headRef === headRef && p.baseRef === baseRef);
  if (existing !== undefined)
    return validationReply([
      {
        resource: 'PullRequest',
        code: 'custom',
        message: `A pull request already exists for ${repo.owner}:${headRef}.`,
      },
    ]);
  const now = ctx.world.timestamp();
  const pr: FakePull = {
    id: ctx.world.nextId(),
    number: ctx.world.pullsOf(repo).length + 1,
    repo,
    user: ctx.principal?.login ?? repo.owner,
    title: stringField(ctx.body, 'title') as string,
    body: stringField(ctx.body, 'body') ?? null,
    state: 'open',
    headRef,
    baseRef,
    headSha,
    baseSha,
    draft: ctx.body['draft'] === true,
    merged: false,
    mergedAt: null,
    mergedBy: null,
    mergeCommitSha: null,
    closedAt: null,
    createdAt: now,
    updatedAt: now,
    mergeable: undefined,
    events: [],
  };
  ctx.world.pulls.push(pr);
  return json(201, await fullPull(ctx, pr));
}

async function listPulls(ctx: RouteContext): Promise<Reply> {
  const repo = repoFor(ctx, 'pull_requests', 'read');
  if (isReply(repo)) return repo;
  const state = ctx.query.get('state') ?? 'open';
  const head = ctx.query.get('head');
  const base = ctx.query.get('base');
  let pulls = ctx.world.pullsOf(repo);
  if (state !== 'all') pulls = pulls.filter((p) => p.state === state);
  // GitHub's quirk: a head without its `owner:` prefix is silently ignored.
  if (head !== null && head.includes(':')) {
    const [owner, ref] = [head.slice(0, head.indexOf(':')), head.slice(head.indexOf(':') + 1)];
    pulls = pulls.filter(
      (p) => p.repo.owner.toLowerCase() === owner.toLowerCase() && p.headRef === ref,
    );
  }
  if (base !== null) pulls = pulls.filter((p) => p.baseRef === base);
  pulls = [...pulls].sort((a, b) => b.number - a.number);
  if (ctx.query.get('direction') === 'asc') pulls.reverse();
  const page = paginate(pulls, ctx.query, ctx.url);
  for (const pr of page.items) await refreshPull(pr);
  return json(
    200,
    page.items.map((pr) => pullJson(ctx.world, ctx.base, pr, false)),
    page.headers,
  );
}

function pullFor(ctx: RouteContext, level: 'read' | 'write'): FakePull | Reply {
  const repo = repoFor(ctx, 'pull_requests', level);
  if (isReply(repo)) return repo;
  const pr = ctx.world.pullsOf(repo).find((p) => p.number === Number(ctx.params[2]));
  return pr ?? notFound();
}

/** The full shape. Reading it starts computing mergeability, so a first read answers null. */
async function fullPull(ctx: RouteContext, pr: FakePull) {
  await refreshPull(pr);
  const key = `${pr.headSha}:${pr.baseSha}`;
  if (pr.state === 'open' && pr.mergeable?.key !== key) {
    pr.mergeable = undefined;
    const result = await mergeTree(pr.repo.gitDir, pr.baseSha, pr.headSha);
    const shape = pullJson(ctx.world, ctx.base, pr, true, await counts(ctx, pr));
    pr.mergeable = { key, value: result.ok };
    return shape;
  }
  return pullJson(ctx.world, ctx.base, pr, true, await counts(ctx, pr));
}

async function counts(ctx: RouteContext, pr: FakePull) {
  return {
    comments: ctx.world.comments.filter((c) => c.repo === pr.repo && c.issue === pr.number).length,
    commits: await countCommits(pr.repo.gitDir, [`${pr.baseSha}..${pr.headSha}`]).catch(() => 0),
  };
}

async function getPull(ctx: RouteContext): Promise<Reply> {
  const pr = pullFor(ctx, 'read');
  return isReply(pr) ? pr : json(200, await fullPull(ctx, pr));
}

async function updatePull(ctx: RouteContext): Promise<Reply> {
  const pr = pullFor(ctx, 'write');
  if (isReply(pr)) return pr;
  const state = stringField(ctx.body, 'state');
  if (state !== undefined && state !== 'open' && state !== 'closed')
    return validationReply([{ resource: 'PullRequest', code: 'invalid', field: 'state' }]);
  if (state !== undefined && state !== pr.state) {
    if (pr.merged)
      return validationReply([
        {
          resource: 'PullRequest',
          code: 'custom',
          field: 'state',
          message: 'state cannot be changed. The pull request has already been merged.',
        },
      ]);
    const actor = ctx.principal?.login ?? pr.repo.owner;
    if (state === 'closed') {
      await refreshPull(pr);
      pr.state = 'closed';
      pr.closedAt = ctx.world.timestamp();
      ctx.world.pullEvent(pr, 'closed', actor);
    } else {
      if ((await branchTip(pr.repo.gitDir, pr.headRef)) === undefined)
        return validationReply([
          {
            resource: 'PullRequest',
            code: 'custom',
            field: 'state',
            message: 'state cannot be changed. The head branch was deleted.',
          },
        ]);
      pr.state = 'open';
      pr.closedAt = null;
      ctx.world.pullEvent(pr, 'reopened', actor);
    }
  }
  const title = stringField(ctx.body, 'title');
  if (title !== undefined) pr.title = title;
  if ('body' in ctx.body) pr.body = stringField(ctx.body, 'body') ?? null;
  pr.updatedAt = ctx.world.timestamp();
  return json(200, await fullPull(ctx, pr));
}

/**
 * A merge made for real: `sha` must be the head (409 otherwise); a merge that no longer applies
 * answers 405; the merge commit is written with `merge-tree` + `commit-tree` and the base moved to
 * it with a compare-and-swap.
 */
async function mergePull(ctx: RouteContext): Promise<Reply> {
  const pr = pullFor(ctx, 'write');
  if (isReply(pr)) return pr;
  const denied = ctx.world.deny(ctx.principal, pr.repo, 'contents', 'write');
  if (denied !== undefined) return denied;
  const notMergeable = (message = 'Pull Request is not mergeable') =>
    errorReply(405, message, { docs: DOCS_MERGE });
  if (pr.state !== 'open') return notMergeable();
  const method = stringField(ctx.body, 'merge_method') ?? 'merge';
  if (method !== 'merge' && method !== 'squash' && method !== 'rebase')
    return validationReply([{ resource: 'PullRequest', code: 'invalid', field: 'merge_method' }]);
  if (method === 'rebase') return notMergeable('Rebase merges are not allowed on this repository.');
  const expectedBase = pr.mergeable?.key.split(':')[1];
  await refreshPull(pr);
  const sha = stringField(ctx.body, 'sha');
  if (sha !== undefined && sha !== pr.headSha)
    return errorReply(409, 'Head branch was modified. Review and try the merge again.', {
      docs: DOCS_MERGE,
    });
  const merged = await mergeTree(pr.repo.gitDir, pr.baseSha, pr.headSha);
  if (!merged.ok)
    return notMergeable(
      expectedBase !== undefined && expectedBase !== pr.baseSha
        ? 'Base branch was modified. Review and try the merge again.'
        : undefined,
    );
  const title =
    stringField(ctx.body, 'commit_title') ??
    (method === 'merge'
      ? `Merge pull request #${pr.number} from ${pr.repo.owner}/${pr.headRef}`
      : `${pr.title} (#${pr.number})`);
  const message = stringField(ctx.body, 'commit_message') ?? (method === 'merge' ? pr.title : '');
  const parents = method === 'merge' ? [pr.baseSha, pr.headSha] : [pr.baseSha];
  const commit = await commitTree(pr.repo.gitDir, merged.tree, parents, `${title}\n\n${message}\n`);
  if (!(await updateRef(pr.repo.gitDir, `refs/heads/${pr.baseRef}`, commit, pr.baseSha)))
    return notMergeable('Base branch was modified. Review and try the merge again.');
  const now = ctx.world.timestamp();
  Object.assign(pr, {
    state: 'closed',
    merged: true,
    mergedAt: now,
    closedAt: now,
    updatedAt: now,
    mergeCommitSha: commit,
    mergedBy: ctx.principal?.login ?? pr.repo.owner,
  });
  ctx.world.pullEvent(pr, 'merged', pr.mergedBy ?? pr.repo.owner, commit);
  ctx.world.pullEvent(pr, 'closed', pr.mergedBy ?? pr.repo.owner);
  await syncPulls(ctx.world, pr.repo, pr.mergedBy ?? pr.repo.owner);
  return json(200, { sha: commit, merged: true, message: 'Pull Request successfully merged' });
}

function createComment(ctx: RouteContext): Reply {
  const repo = repoFor(ctx, 'pull_requests', 'write');
  if (isReply(repo)) return repo;
  const issue = Number(ctx.params[2]);
  if (!ctx.world.pullsOf(repo).some((p) => p.number === issue)) return notFound();
  const body = stringField(ctx.body, 'body');
  if (body === undefined)
    return validationReply([{ resource: 'IssueComment', code: 'missing_field', field: 'body' }]);
  const comment = {
    id: ctx.world.nextId(),
    repo,
    issue,
    user: ctx.principal?.login ?? repo.owner,
    body,
    createdAt: ctx.world.timestamp(),
  };
  ctx.world.comments.push(comment);
  return json(201, commentJson(ctx.world, ctx.base, comment));
}

function listComments(ctx: RouteContext): Reply {
  const repo = repoFor(ctx, 'pull_requests', 'read');
  if (isReply(repo)) return repo;
  const issue = Number(ctx.params[2]);
  if (!ctx.world.pullsOf(repo).some((p) => p.number === issue)) return notFound();
  const page = paginate(
    ctx.world.comments.filter((c) => c.repo === repo && c.issue === issue),
    ctx.query,
    ctx.url,
  );
  return json(
    200,
    page.items.map((c) => commentJson(ctx.world, ctx.base, c)),
    page.headers,
  );
}

/**
 * A pull request's timeline (`GET …/issues/{n}/timeline`): its state events, oldest first, in the
 * shape of GitHub's `state-change-issue-event` (comments and commits, which GitHub lists there
 * too, are left out).
 */
function listTimeline(ctx: RouteContext): Reply {
  const pr = pullFor(ctx, 'read');
  if (isReply(pr)) return pr;
  const page = paginate(pr.events, ctx.query, ctx.url);
  return json(
    200,
    page.items.map((e) => timelineEventJson(ctx.world, ctx.base, pr, e)),
    page.headers,
  );
}
