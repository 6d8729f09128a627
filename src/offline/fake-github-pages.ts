import { changedFiles, listRefs, mergeBase, readCommits } from './fake-github-git.js';
import { escapeHtml as esc, markdownHtml } from './fake-github-markdown.js';
import { refreshPull } from './fake-github-route.js';
import type { FakeGitHubWorld, FakePull, FakeRepo } from './fake-github-world.js';

/**
 * The fake GitHub's web pages, so the links MAKER prints (a repository's and a pull request's
 * `html_url`) can be opened in a browser while the fake serves: `GET /<owner>/<repo>` and
 * `GET /<owner>/<repo>/pull/<n>`, for a request that asks for HTML (a browser's `Accept`). Not
 * GitHub's pages: simple ones, marked as simulated, with no script. They need no token (there is
 * no sign-in): the fake holds only simulated work, on 127.0.0.1.
 */
export async function webPage(
  world: FakeGitHubWorld,
  base: string,
  method: string,
  path: string,
  accept: string | undefined,
): Promise<{ status: number; html: string } | undefined> {
  if (method !== 'GET' || !/\btext\/html\b/.test(accept ?? '')) return undefined;
  const m = /^\/([^/]+)\/([^/]+?)(?:\/pull\/(\d+))?\/?$/.exec(path);
  if (m === null) return undefined;
  const repo = world.repo(decodeURIComponent(m[1] as string), decodeURIComponent(m[2] as string));
  if (repo === undefined) return undefined;
  if (m[3] === undefined) return { status: 200, html: await repoPage(world, base, repo) };
  const pr = world.pullsOf(repo).find((p) => p.number === Number(m[3]));
  if (pr === undefined)
    return {
      status: 404,
      html: page(
        `Not found`,
        `<p>${esc(repo.owner)}/${esc(repo.name)} has no pull request #${esc(m[3])}.</p>`,
      ),
    };
  return { status: 200, html: await pullPage(world, base, pr) };
}

/** The page's headers: no script, nothing loaded from elsewhere. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
  'x-content-type-options': 'nosniff',
} as const;

async function repoPage(world: FakeGitHubWorld, base: string, repo: FakeRepo): Promise<string> {
  const home = `${base}/${repo.owner}/${repo.name}`;
  const branches = await listRefs(repo.gitDir, 'refs/heads/');
  const head = branches.find((b) => b.ref === `refs/heads/${repo.defaultBranch}`);
  const commits = head === undefined ? [] : await readCommits(repo.gitDir, [head.sha], 10);
  const pulls = world.pullsOf(repo);
  const body = [
    `<p>${repo.private ? 'Private' : 'Public'} repository${repo.description === null ? '' : ` — ${esc(repo.description)}`}. Default branch <code>${esc(repo.defaultBranch)}</code>${head === undefined ? ' (empty)' : ` at <code>${head.sha.slice(0, 12)}</code>`}. Clone: <code>${esc(`${home}.git`)}</code></p>`,
    `<h2>Pull requests (${pulls.length})</h2>`,
    pulls.length === 0
      ? '<p>None.</p>'
      : `<ul>${pulls
          .map(
            (p) =>
              `<li><a href="${esc(`${home}/pull/${p.number}`)}">#${p.number} ${esc(p.title)}</a> — ${pullState(p)}</li>`,
          )
          .join('')}</ul>`,
    `<h2>Recent commits on ${esc(repo.defaultBranch)}</h2>`,
    commits.length === 0
      ? '<p>None.</p>'
      : `<ul>${commits
          .map(
            (c) =>
              `<li><code>${c.sha.slice(0, 12)}</code> ${esc(c.message.split('\n')[0] ?? '')} — ${esc(c.author.name)}, ${esc(c.author.date)}</li>`,
          )
          .join('')}</ul>`,
    `<h2>Branches (${branches.length})</h2>`,
    `<ul>${branches
      .map(
        (b) =>
          `<li><code>${esc(b.ref.slice('refs/heads/'.length))}</code> ${b.sha.slice(0, 12)}</li>`,
      )
      .join('')}</ul>`,
  ];
  return page(`${repo.owner}/${repo.name}`, body.join('\n'));
}

async function pullPage(world: FakeGitHubWorld, base: string, pr: FakePull): Promise<string> {
  await refreshPull(pr);
  const repo = pr.repo;
  const from = (await mergeBase(repo.gitDir, pr.baseSha, pr.headSha)) ?? pr.baseSha;
  const files = await changedFiles(repo.gitDir, from, pr.headSha).catch(() => undefined);
  const comments = world.comments.filter((c) => c.repo === repo && c.issue === pr.number);
  const home = `${base}/${repo.owner}/${repo.name}`;
  const body = [
    `<p><a href="${esc(home)}">${esc(`${repo.owner}/${repo.name}`)}</a> · <strong class="state">${pullState(pr)}</strong> · <code>${esc(pr.baseRef)}</code> ← <code>${esc(pr.headRef)}</code> · opened by ${esc(pr.user)} ${esc(pr.createdAt)}</p>`,
    `<div class="body">${pr.body === null || pr.body === '' ? '<p>No description.</p>' : markdownHtml(pr.body)}</div>`,
    `<h2>Files changed (${files?.length ?? '?'})</h2>`,
    files === undefined
      ? '<p>The diff is not available.</p>'
      : `<table class="files"><tr><th>file</th><th>status</th><th>+</th><th>−</th></tr>${files
          .map(
            (f) =>
              `<tr><td><code>${esc(f.path)}</code></td><td>${esc(f.status)}</td><td>${f.additions}</td><td>${f.deletions}</td></tr>`,
          )
          .join('')}</table>`,
    ...(comments.length === 0
      ? []
      : [
          `<h2>Comments (${comments.length})</h2>`,
          ...comments.map(
            (c) =>
              `<div class="comment"><p>${esc(c.user)}, ${esc(c.createdAt)}</p>${markdownHtml(c.body)}</div>`,
          ),
        ]),
  ];
  return page(`#${pr.number} ${pr.title}`, body.join('\n'));
}

/** Open, merged (by whom, when, as which commit) or closed. */
function pullState(pr: FakePull): string {
  if (pr.merged)
    return `Merged${pr.mergedBy === null ? '' : ` by ${esc(pr.mergedBy)}`}${pr.mergedAt === null ? '' : ` ${esc(pr.mergedAt)}`}${pr.mergeCommitSha === null ? '' : ` as ${pr.mergeCommitSha.slice(0, 12)}`}`;
  if (pr.state === 'closed')
    return `Closed without merging${pr.closedAt === null ? '' : ` ${esc(pr.closedAt)}`}`;
  return `Open${pr.draft ? ' (draft)' : ''}`;
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)} · SIMULATED GitHub</title>
<style>
body{font:14px/1.5 system-ui,sans-serif;max-width:1000px;margin:0 auto;padding:1em;color:#1f2328}
.banner{background:#fff8c5;border:1px solid #d4a72c;padding:.4em .8em;border-radius:6px}
code{background:#f6f8fa;padding:0 .3em;border-radius:4px}
pre{background:#f6f8fa;padding:.8em;overflow:auto}
table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.2em .6em;text-align:left}
.diagram,.diagram ul{list-style:none;padding-left:1.4em}.diagram{padding-left:0}
.diagram li{margin:.3em 0}.box{display:inline-block;border:2px solid #999;border-radius:6px;padding:.2em .6em}
.comment{border-top:1px solid #d0d7de;margin-top:.8em}
blockquote{margin:.5em 0;padding-left:.8em;border-left:3px solid #d0d7de;color:#59636e}
</style></head><body>
<p class="banner">SIMULATED GitHub: MAKER's local fake on 127.0.0.1, not github.com.</p>
<h1>${esc(title)}</h1>
${body}
</body></html>
`;
}
