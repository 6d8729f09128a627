import {
  branchTip,
  changedFiles,
  commitFile,
  countCommits,
  deleteRef,
  initBare,
  isAncestor,
  listRefs,
  mergeBase,
  objectExists,
  readCommits,
  resolveCommit,
  updateRef,
} from './fake-github-git.js';
import {
  isReply,
  repoFor,
  stringField,
  syncPulls,
  type Route,
  type RouteContext,
} from './fake-github-route.js';
import { commitJson, refJson, repoJson, userJson } from './fake-github-shapes.js';
import { scopes, type FakeRepo } from './fake-github-world.js';
import { errorReply, json, notFound, validationReply, type Reply } from './github-http.js';

/** The fake's user, repository, git refs, branch and compare routes. */

const NAME = '([^/]+)';
const REPO = `^/repos/${NAME}/${NAME}`;
const DOCS_CREATE =
  'https://docs.github.com/rest/repos/repos#create-a-repository-for-the-authenticated-user';

export const repoRoutes: readonly Route[] = [
  { method: 'GET', pattern: /^\/user$/, handle: getUser },
  { method: 'GET', pattern: new RegExp(`^/orgs/${NAME}$`), handle: getOrg },
  { method: 'POST', pattern: /^\/user\/repos$/, handle: (ctx) => createRepo(ctx, undefined) },
  {
    method: 'POST',
    pattern: new RegExp(`^/orgs/${NAME}/repos$`),
    handle: (ctx) => createRepo(ctx, ctx.params[0]),
  },
  { method: 'GET', pattern: new RegExp(`${REPO}$`), handle: getRepo },
  { method: 'GET', pattern: new RegExp(`${REPO}/git/ref/(.+)$`), handle: getRef },
  { method: 'GET', pattern: new RegExp(`${REPO}/git/matching-refs/(.*)$`), handle: matchingRefs },
  { method: 'POST', pattern: new RegExp(`${REPO}/git/refs$`), handle: createRef },
  { method: 'PATCH', pattern: new RegExp(`${REPO}/git/refs/(.+)$`), handle: updateRefRoute },
  { method: 'DELETE', pattern: new RegExp(`${REPO}/git/refs/(.+)$`), handle: deleteRefRoute },
  { method: 'GET', pattern: new RegExp(`${REPO}/branches/(.+)$`), handle: getBranch },
  { method: 'GET', pattern: new RegExp(`${REPO}/compare/(.+)$`), handle: compare },
];

/** An organisation's public profile; 404 for a user or a login nobody has, as GitHub answers. */
function getOrg(ctx: RouteContext): Reply {
  const login = ctx.params[0] ?? '';
  if (!ctx.world.isOrg(login)) return notFound();
  return json(200, { ...userJson(ctx.world, ctx.base, login), description: null });
}

function getUser(ctx: RouteContext): Reply {
  const p = ctx.principal;
  if (p === undefined) return errorReply(401, 'Requires authentication');
  return json(
    200,
    {
      ...userJson(ctx.world, ctx.base, p.login),
      name: p.login,
      email: null,
      created_at: '2020-01-01T00:00:00Z',
    },
    p.kind === 'classic' ? { 'x-oauth-scopes': scopes(p) } : {},
  );
}

async function createRepo(ctx: RouteContext, org: string | undefined): Promise<Reply> {
  const p = ctx.principal;
  if (p === undefined) return errorReply(401, 'Requires authentication');
  if (org !== undefined && (!ctx.world.isOrg(org) || !ctx.world.isMember(org, p.login)))
    return notFound();
  if (p.permissions.administration !== 'write')
    return ctx.world.refusal(p, 'administration', 'write');
  const name = stringField(ctx.body, 'name');
  if (name === undefined)
    return validationReply([{ resource: 'Repository', code: 'missing_field', field: 'name' }]);
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(name) || name === '.' || name === '..')
    return validationReply(
      [{ resource: 'Repository', code: 'custom', field: 'name', message: 'name is invalid' }],
      'Repository creation failed.',
      DOCS_CREATE,
    );
  const owner = org ?? p.login;
  if (ctx.world.repo(owner, name) !== undefined)
    return validationReply(
      [
        {
          resource: 'Repository',
          code: 'custom',
          field: 'name',
          message: 'name already exists on this account',
        },
      ],
      'Repository creation failed.',
      DOCS_CREATE,
    );
  const now = ctx.world.timestamp();
  const description = stringField(ctx.body, 'description') ?? null;
  const repo: FakeRepo = {
    id: ctx.world.nextId(),
    owner,
    ownerType: org === undefined ? 'User' : 'Organization',
    name,
    private: ctx.body['private'] !== false,
    description,
    defaultBranch: 'main',
    gitDir: ctx.world.gitDir(owner, name),
    createdAt: now,
    updatedAt: now,
    pushedAt: null,
  };
  // Registered before anything is awaited, so two concurrent creates of one name make one repository.
  ctx.world.repos.set(`${owner}/${name}`.toLowerCase(), repo);
  await initBare(repo.gitDir, repo.defaultBranch);
  if (ctx.body['auto_init'] === true) {
    const readme = `# ${name}\n${description === null ? '' : `\n${description}\n`}`;
    const sha = await commitFile(repo.gitDir, undefined, 'README.md', readme, 'Initial commit');
    await updateRef(repo.gitDir, `refs/heads/${repo.defaultBranch}`, sha, null);
    repo.pushedAt = now;
  }
  return json(201, repoJson(ctx.world, ctx.base, repo, { admin: true, push: true, pull: true }));
}

function getRepo(ctx: RouteContext): Reply {
  const repo = repoFor(ctx, 'contents', 'read');
  if (isReply(repo)) return repo;
  const owner = ctx.world.isOwner(ctx.principal, repo.owner);
  const can = (perm: 'administration' | 'contents') =>
    owner && ctx.principal?.permissions[perm] === 'write';
  return json(
    200,
    repoJson(ctx.world, ctx.base, repo, {
      admin: can('administration'),
      push: can('contents'),
      pull: true,
    }),
  );
}

/** Git-data routes answer 409 on a repository without any commit, as GitHub does. */
async function nonEmpty(ctx: RouteContext, level: 'read' | 'write'): Promise<FakeRepo | Reply> {
  const repo = repoFor(ctx, 'contents', level);
  if (isReply(repo)) return repo;
  if ((await listRefs(repo.gitDir, 'refs/heads/')).length === 0)
    return errorReply(409, 'Git Repository is empty.');
  return repo;
}

async function getRef(ctx: RouteContext): Promise<Reply> {
  const repo = await nonEmpty(ctx, 'read');
  if (isReply(repo)) return repo;
  const ref = `refs/${ctx.params[2] as string}`;
  const found = (await listRefs(repo.gitDir, ref)).find((r) => r.ref === ref);
  return found === undefined ? notFound() : json(200, refJson(ctx.base, repo, ref, found.sha));
}

async function matchingRefs(ctx: RouteContext): Promise<Reply> {
  const repo = await nonEmpty(ctx, 'read');
  if (isReply(repo)) return repo;
  const prefix = `refs/${ctx.params[2] as string}`;
  const refs = (await listRefs(repo.gitDir, 'refs/')).filter((r) => r.ref.startsWith(prefix));
  return json(
    200,
    refs.map((r) => refJson(ctx.base, repo, r.ref, r.sha)),
  );
}

async function createRef(ctx: RouteContext): Promise<Reply> {
  const repo = await nonEmpty(ctx, 'write');
  if (isReply(repo)) return repo;
  const ref = stringField(ctx.body, 'ref');
  const sha = stringField(ctx.body, 'sha');
  if (ref === undefined || sha === undefined)
    return validationReply([], 'Invalid request.\n\n"ref" and "sha" are required.');
  if (!ref.startsWith('refs/') || ref.split('/').length < 3)
    return validationReply(
      [],
      "Reference name must start with 'refs/' and have at least two slashes.",
    );
  if (!(await objectExists(repo.gitDir, sha))) return validationReply([], 'Object does not exist');
  if (!(await updateRef(repo.gitDir, ref, sha, null)))
    return validationReply([], 'Reference already exists');
  await syncPulls(ctx.world, repo, ctx.principal?.login);
  return json(201, refJson(ctx.base, repo, ref, sha));
}

async function updateRefRoute(ctx: RouteContext): Promise<Reply> {
  const repo = await nonEmpty(ctx, 'write');
  if (isReply(repo)) return repo;
  const ref = `refs/${ctx.params[2] as string}`;
  const sha = stringField(ctx.body, 'sha');
  if (sha === undefined) return validationReply([], 'Invalid request.\n\n"sha" wasn\'t supplied.');
  const current = (await listRefs(repo.gitDir, ref)).find((r) => r.ref === ref)?.sha;
  if (current === undefined) return validationReply([], 'Reference does not exist');
  if (!(await objectExists(repo.gitDir, sha))) return validationReply([], 'Object does not exist');
  if (ctx.body['force'] !== true && !(await isAncestor(repo.gitDir, current, sha)))
    return validationReply([], 'Update is not a fast forward');
  if (!(await updateRef(repo.gitDir, ref, sha, current)))
    return validationReply([], 'Reference cannot be updated');
  await syncPulls(ctx.world, repo, ctx.principal?.login);
  return json(200, refJson(ctx.base, repo, ref, sha));
}

async function deleteRefRoute(ctx: RouteContext): Promise<Reply> {
  const repo = await nonEmpty(ctx, 'write');
  if (isReply(repo)) return repo;
  const ref = `refs/${ctx.params[2] as string}`;
  if (ref === `refs/heads/${repo.defaultBranch}`)
    return validationReply([], 'Cannot delete the default branch');
  const current = (await listRefs(repo.gitDir, ref)).find((r) => r.ref === ref)?.sha;
  if (current === undefined || !(await deleteRef(repo.gitDir, ref, current)))
    return validationReply([], 'Reference does not exist');
  await syncPulls(ctx.world, repo, ctx.principal?.login);
  return { status: 204 };
}

async function getBranch(ctx: RouteContext): Promise<Reply> {
  const repo = repoFor(ctx, 'contents', 'read');
  if (isReply(repo)) return repo;
  const name = ctx.params[2] as string;
  const tip = await branchTip(repo.gitDir, name);
  if (tip === undefined) return errorReply(404, 'Branch not found');
  const [commit] = await readCommits(repo.gitDir, [tip], 1);
  const api = `${ctx.base}/repos/${repo.owner}/${repo.name}/branches/${name}`;
  return json(200, {
    name,
    commit: commitJson(ctx.base, repo, commit as NonNullable<typeof commit>),
    _links: { self: api, html: `${ctx.base}/${repo.owner}/${repo.name}/tree/${name}` },
    protected: false,
    protection: {
      enabled: false,
      required_status_checks: { enforcement_level: 'off', contexts: [], checks: [] },
    },
    protection_url: `${api}/protection`,
  });
}

async function compare(ctx: RouteContext): Promise<Reply> {
  const repo = repoFor(ctx, 'contents', 'read');
  if (isReply(repo)) return repo;
  const basehead = ctx.params[2] as string;
  const [baseName, headName] = basehead.split('...');
  if (baseName === undefined || headName === undefined) return notFound();
  const base = await resolveEnd(repo, baseName);
  const head = await resolveEnd(repo, headName);
  if (base === undefined || head === undefined) return notFound();
  const mb = await mergeBase(repo.gitDir, base, head);
  if (mb === undefined) return notFound();
  const ahead = await countCommits(repo.gitDir, [`${base}..${head}`]);
  const behind = await countCommits(repo.gitDir, [`${head}..${base}`]);
  const status =
    ahead === 0 && behind === 0
      ? 'identical'
      : behind === 0
        ? 'ahead'
        : ahead === 0
          ? 'behind'
          : 'diverged';
  const commits = (await readCommits(repo.gitDir, [`${base}..${head}`], 250)).reverse();
  const [baseCommit] = await readCommits(repo.gitDir, [base], 1);
  const [mbCommit] = await readCommits(repo.gitDir, [mb], 1);
  const files = await changedFiles(repo.gitDir, mb, head);
  const html = `${ctx.base}/${repo.owner}/${repo.name}`;
  const statusName: Record<string, string> = {
    A: 'added',
    D: 'removed',
    M: 'modified',
    T: 'changed',
  };
  return json(200, {
    url: `${ctx.base}/repos/${repo.owner}/${repo.name}/compare/${basehead}`,
    html_url: `${html}/compare/${basehead}`,
    permalink_url: `${html}/compare/${repo.owner}:${base.slice(0, 7)}...${repo.owner}:${head.slice(0, 7)}`,
    diff_url: `${html}/compare/${basehead}.diff`,
    patch_url: `${html}/compare/${basehead}.patch`,
    base_commit: commitJson(ctx.base, repo, baseCommit as NonNullable<typeof baseCommit>),
    merge_base_commit: commitJson(ctx.base, repo, mbCommit as NonNullable<typeof mbCommit>),
    status,
    ahead_by: ahead,
    behind_by: behind,
    total_commits: ahead,
    commits: commits.map((c) => commitJson(ctx.base, repo, c)),
    files: files.map((f) => ({
      sha: f.sha,
      filename: f.path,
      status: statusName[f.status] ?? 'modified',
      additions: f.additions,
      deletions: f.deletions,
      changes: f.additions + f.deletions,
      blob_url: `${html}/blob/${head}/${f.path}`,
    })),
  });
}

/** A compare end: `branch`, `owner:branch`, or a commit. */
async function resolveEnd(repo: FakeRepo, name: string): Promise<string | undefined> {
  const local = name.includes(':') ? name.slice(name.indexOf(':') + 1) : name;
  if (
    name.includes(':') &&
    name.slice(0, name.indexOf(':')).toLowerCase() !== repo.owner.toLowerCase()
  )
    return undefined;
  return (await branchTip(repo.gitDir, local)) ?? (await resolveCommit(repo.gitDir, local));
}
