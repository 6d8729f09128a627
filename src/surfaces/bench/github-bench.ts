import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { gitAuthEnv } from '../../adapters/git/git-auth.js';
import { runGit, type GitRunner } from '../../adapters/git/git-process.js';
import { GitWorkspace } from '../../adapters/git/git-workspace.js';
import { BatchRefPublisher } from '../../adapters/git/ref-publisher.js';
import { createGitHubHost, type GitHubHost } from '../../adapters/github/github-host.js';
import type { PullRequestInfo, RepositoryInfo } from '../../ports/repo-host.js';
import { MakerError } from '../../core/errors.js';

export interface GitHubBenchOptions {
  /** The bundled CLI, whose `fake-github` serves the fake in its own process (GitHub is remote). */
  readonly cliPath: string;
  readonly branches: number;
  /** Branches asked for at one moment (one batch). */
  readonly batch: number;
  readonly repeats: number;
}

/**
 * `maker bench github`: publishing a run's node branches to GitHub, against the fake GitHub in its
 * own process over real HTTP and real git. Each trial: the repository is ensured, `main` pushed,
 * then N node branches created at the base and later each moved to its node's commit, `batch` at a
 * time as the engine asks for them, through the one publisher; the pull request from the root
 * branch is opened once the root has work (the first batch of moves), its body updated once per
 * later batch, and merged at the end with the expected head. Counts every git process the publisher spawns and every REST
 * request the fake answered.
 */
export async function runGitHubBench(options: GitHubBenchOptions) {
  const token = `ghp_${randomBytes(18).toString('hex')}`;
  const fake = await startFakeProcess(options.cliPath, token);
  try {
    const trials = [];
    for (let i = 0; i < options.repeats; i++) trials.push(await trial(options, fake, token, i));
    const perBranch = trials.map((t) => t.wallMs / options.branches).sort((a, b) => a - b);
    const last = trials.at(-1) as Awaited<ReturnType<typeof trial>>;
    // `main` first, then the batches that create the node branches and the ones that move them.
    const batches = 1 + 2 * Math.ceil(options.branches / options.batch);
    return {
      branches: options.branches,
      batch: options.batch,
      repeats: options.repeats,
      batches,
      branchMoves: last.moves,
      pushProcesses: last.pushes,
      pushProcessesPerBatch: round(last.pushes / batches, 2),
      gitProcessesPerBranch: round(last.gitProcesses / options.branches, 3),
      restRequests: last.rest,
      restRequestsPerBranchMove: round(last.rest / last.moves, 3),
      restByRoute: last.byRoute,
      wallMsPerBranch: {
        median: round(perBranch[Math.floor(perBranch.length / 2)] ?? 0, 2),
        min: round(perBranch[0] ?? 0, 2),
        max: round(perBranch.at(-1) ?? 0, 2),
      },
      merged: trials.every((t) => t.merged),
    };
  } finally {
    await fake.close();
  }
}

type FakeGitHub = Awaited<ReturnType<typeof startFakeProcess>>;

/**
 * One trial on a fresh repository `app-<index>`: the node commits made, then (timed) everything
 * published and the pull request merged; what that took in git processes and REST requests.
 */
async function trial(options: GitHubBenchOptions, fake: FakeGitHub, token: string, index: number) {
  const root = await mkdtemp(join(tmpdir(), 'maker-bench-github-'));
  try {
    const workspace = await GitWorkspace.open(join(root, 'repo'), { create: true });
    const base = (await workspace.resolve('main')) as string;
    const names = nodeBranches(options.branches);
    // The nodes' commits exist before timing starts: producing them is the engine's work.
    const moved = await commitNodes(workspace, base, names);
    await fake.control('DELETE', 'requests');
    const git = new CountingGit();
    const started = performance.now();
    const host = createGitHubHost({ token, baseUrl: fake.baseUrl, throttle: false });
    const repo = await host.ensureRepository({ owner: 'bench', name: `app-${index}` });
    const publisher = new BatchRefPublisher({
      cwd: workspace.dir,
      remoteUrl: repo.cloneUrl,
      env: () => gitAuthEnv(repo.cloneUrl, token),
      git: git.run,
      secrets: [token],
    });
    await publisher.publish('main', base);
    await createBranches(publisher, names, base, options.batch);
    const pr = await moveBranches(publisher, host, repo, names, moved, options.batch);
    const outcome = await host.mergePullRequest(repo, (pr as { number: number }).number, {
      expectedHeadSha: moved[0] as string,
    });
    const wallMs = performance.now() - started;
    const requests = (await fake.requests()).filter((r) => r.kind === 'api');
    return {
      wallMs,
      gitProcesses: git.processes,
      pushes: git.pushes,
      rest: requests.length,
      byRoute: countByRoute(requests),
      moves: 2 * names.length + 1,
      merged: outcome.status === 'merged',
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** The run's node branch names, the root's first. */
function nodeBranches(count: number): string[] {
  return Array.from({ length: count }, (_, i) =>
    i === 0 ? 'maker/rbench/n-root' : `maker/rbench/n-${i - 1}`,
  );
}

/** A commit on `base` for each node branch (a file of its own), in the order of `names`. */
async function commitNodes(workspace: GitWorkspace, base: string, names: readonly string[]) {
  const date = new Date('2026-01-01T00:00:00Z');
  const moved: string[] = [];
  for (const [i, name] of names.entries()) {
    const tree = await workspace.treeWithEdits(base, [
      { path: `node-${i}.txt`, content: `${name}\n` },
    ]);
    moved.push(await workspace.commit({ tree, parents: [base], message: name, date }));
  }
  return moved;
}

/** A {@link GitRunner} that counts the git processes it starts, and of those the pushes. */
class CountingGit {
  processes = 0;
  pushes = 0;
  readonly run: GitRunner = (args, o) => {
    this.processes += 1;
    if (args[0] === 'push') this.pushes += 1;
    return runGit(args, o);
  };
}

/** Every node branch created at `base`, `batch` at a time. */
async function createBranches(
  publisher: BatchRefPublisher,
  names: readonly string[],
  base: string,
  batch: number,
) {
  for (let at = 0; at < names.length; at += batch) {
    await Promise.all(names.slice(at, at + batch).map((n) => publisher.publish(n, base)));
  }
}

/**
 * Every node branch moved to its commit, `batch` at a time; after each batch the pull request
 * from the root branch is opened (the first time) or its body updated. Returns the pull request.
 */
async function moveBranches(
  publisher: BatchRefPublisher,
  host: GitHubHost,
  repo: RepositoryInfo,
  names: readonly string[],
  moved: readonly string[],
  batch: number,
) {
  let pr: PullRequestInfo | undefined;
  for (let at = 0; at < names.length; at += batch) {
    const slice = names.slice(at, at + batch);
    await Promise.all(slice.map((n, i) => publisher.publish(n, moved[at + i] as string)));
    const body = `Nodes done: ${Math.min(at + batch, names.length)}/${names.length}`;
    pr =
      pr === undefined
        ? await host.openPullRequest(repo, {
            head: names[0] as string,
            base: 'main',
            title: 'bench',
            body,
          })
        : await host.updatePullRequest(repo, pr.number, { body });
  }
  return pr;
}

/** REST requests counted by route (`GET /repos/{o}/{r}/pulls/{n}`: query, owner, name and numbers generalised). */
function countByRoute(requests: readonly { method: string; path: string }[]) {
  const byRoute: Record<string, number> = {};
  for (const r of requests) {
    const route = `${r.method} ${r.path
      .replace(/\?.*$/, '')
      .replace(/\/repos\/[^/]+\/[^/]+/, '/repos/{o}/{r}')
      .replace(/\/\d+/g, '/{n}')}`;
    byRoute[route] = (byRoute[route] ?? 0) + 1;
  }
  return byRoute;
}

/** The fake GitHub as a child process (`maker fake-github`); the token goes by environment. */
async function startFakeProcess(cliPath: string, token: string) {
  const child = spawn(
    process.execPath,
    [cliPath, 'fake-github', '--login', 'bench', '--stdin-lifetime'],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, MAKER_FAKE_GITHUB_TOKEN: token },
    },
  );
  const lines = createInterface({ input: child.stdout });
  const [line] = (await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(() => {
      throw new MakerError(
        'bench-failed',
        'The fake GitHub process (maker fake-github) exited before it was ready: its errors are above.',
      );
    }),
  ])) as [string];
  lines.close();
  const { baseUrl } = z.object({ baseUrl: z.string() }).parse(JSON.parse(line));
  const log = z.object({
    requests: z.array(z.object({ kind: z.string(), method: z.string(), path: z.string() })),
  });
  const control = (method: string, path: string) => fetch(`${baseUrl}/_fake/${path}`, { method });
  return {
    baseUrl,
    control,
    requests: async () => log.parse(await (await control('GET', 'requests')).json()).requests,
    close: async () => {
      const exited = once(child, 'exit');
      child.stdin.end();
      await exited;
    },
  };
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
