import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SimPlanner, SimWorker } from '../../src/adapters/sim/project-sim.js';
import type { GitWorkspace } from '../../src/adapters/git/git-workspace.js';
import { inspectRepository } from '../../src/adapters/git/inspect.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import { planGitHub } from '../../src/app/github/plan.js';
import { setUpGitHub } from '../../src/app/github/setup.js';
import { remotesFor } from '../../src/app/github/wiring.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import type { Target } from '../../src/app/start/preflight.js';
import type { FakeGitHub } from '../../src/offline/fake-github.js';
import { baseConfig } from '../helpers/engine.js';
import { TOKENS, git, pushSomeoneElses, testOctokit, useFakeGitHub } from '../helpers/github.js';
import { copyKilled, storedFake } from '../helpers/process-group.js';
import { useSharedTempDirs, useTempDirs } from '../helpers/tmp.js';
import { readSettings } from '../../src/app/settings.js';
import { workspaceSettings } from '../helpers/settings.js';

/**
 * The engine's GitHub steps against the fake GitHub, with the faults only someone else can cause:
 * a node branch moved on GitHub (a question, never a force push), and the default branch moved
 * under the pull request so that it conflicts (merged in with a voted integration, then the veto
 * is asked again).
 */
const tempDir = useTempDirs();
const sharedDir = useSharedTempDirs();
const startFake = useFakeGitHub();
const opened: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close();
});

/** A MAKER engine on `workspace` (its run's GitHub steps authorised by the full token). */
function engineOn(dir: string, workspace: GitWorkspace): MakerEngine {
  opened.push(workspace);
  const sim = { seed: 7 };
  const remote = remotesFor(workspace, TOKENS.full, () => engine.persist());
  const engine: MakerEngine = new MakerEngine({
    workspace,
    roles: { planner: new SimPlanner(sim), worker: new SimWorker(sim) },
    store: makerStateFile(dir),
    remote,
  });
  return engine;
}

/** A new run in `dir` publishing to alice/`name` on `fake`, not yet started. */
async function githubRun(fake: FakeGitHub, name: string, dir?: string) {
  dir ??= join(await tempDir(), name);
  const env = { GITHUB_API_URL: fake.baseUrl, GITHUB_TOKEN: TOKENS.full };
  const { plan, problems } = await planGitHub(
    { repo: { owner: 'alice', name } },
    (await inspectRepository(dir)) as Target,
    dir,
    readSettings(env),
  );
  expect(problems).toEqual([]);
  if (plan === undefined) throw new Error('no plan');
  const { workspace, record } = await setUpGitHub(plan, dir, () =>
    openWorkspace(dir, true, workspaceSettings()),
  );
  const engine = engineOn(dir, workspace);
  const runId = await engine.create(
    'a csv tool',
    // A tree of one level (a root and its four leaves): every fault here is at the root's pull
    // request or a node's branch, which a deeper tree only multiplies.
    { ...baseConfig, hitl: 'defer', maxDepth: 1 },
    {
      github: record,
    },
  );
  return { dir, engine, runId, workspace };
}

/**
 * A run of alice/app gone as far as its final veto (its pull request open, every node branch
 * pushed), made once in this file, and the fake GitHub's world it published to (kept on disk).
 * The run is the same every time (seed 7): each test that starts at the veto gets a copy of it
 * ({@link atVeto}) instead of running it again.
 */
let madeAtVeto: Promise<{ base: string; port: number }> | undefined;
async function makeAtVeto(): Promise<{ base: string; port: number }> {
  const base = await sharedDir();
  const root = join(base, 'github');
  await mkdir(root);
  const fake = await storedFake(root);
  try {
    const { engine, runId, workspace } = await githubRun(fake, 'app', join(base, 'app'));
    const first = await engine.run(runId);
    expect(first.pending.map((q) => q.id)).toEqual(['q-root-veto']);
    await workspace.close();
    return { base, port: Number(new URL(fake.baseUrl).port) };
  } finally {
    await fake.close();
  }
}

/**
 * A copy of the run at its veto (as {@link makeAtVeto} left it) with a fake GitHub serving a copy
 * of its world on the run's recorded port (its URLs name it; one copy's fake at a time, each
 * closed after its test), and a new engine on the copy.
 */
async function atVeto() {
  madeAtVeto ??= makeAtVeto();
  const { base, port } = await madeAtVeto;
  const at = join(await tempDir(), 'at-veto');
  copyKilled(at, join(base, 'app'), 'app', join(base, 'github'));
  const fake = await storedFake(join(at, 'github'), { port });
  opened.push(fake);
  const dir = join(at, 'app');
  const workspace = await openWorkspace(dir, false, workspaceSettings());
  const engine = engineOn(dir, workspace);
  const runs = Object.keys((await makerStateFile(dir).load()).runs);
  expect(runs).toHaveLength(1);
  const runId = runs[0] as string;
  // Where the run stopped, as a resume finds it: at the veto, its only question.
  expect((await engine.getRun(runId)).status).toBe('awaiting-human');
  expect((await engine.pendingQuestions(runId)).map((q) => q.id)).toEqual(['q-root-veto']);
  return { fake, dir, engine, runId, workspace };
}

const repoOf = async (fake: FakeGitHub, name: string) =>
  (await fake.state()).repos.find((r) => r.fullName === `alice/${name}`);

describe('the engine on GitHub', () => {
  it('a node branch someone else moved on GitHub becomes a question; nothing is force-pushed', async () => {
    const fake = await startFake();
    const { engine, runId } = await githubRun(fake, 'moved');
    const foreign = await fake.foreignCommit({
      owner: 'alice',
      repo: 'moved',
      branch: `maker/${runId}/n-root`,
    });
    const outcome = await engine.run(runId);
    expect(outcome.status).toBe('awaiting-human');
    const question = outcome.pending.find((q) => q.id === 'q-pushed-root-0');
    expect(question?.prompt).toContain(
      `Someone else changed branch maker/${runId}/n-root on GitHub`,
    );
    expect(question?.prompt).toContain('MAKER never force-pushes');
    // Every other branch went out; the moved one still holds the foreign commit; no PR yet.
    const repo = await repoOf(fake, 'moved');
    expect(repo?.branches[`maker/${runId}/n-root`]).toBe(foreign);
    expect(
      Object.keys(repo?.branches ?? {}).filter((b) => b.startsWith('maker/')).length,
    ).toBeGreaterThan(3);
    expect(repo?.pulls).toEqual([]);
    // Told to stop: the run stops, saying how to go on.
    await engine.answer(runId, 'q-pushed-root-0', 'stop');
    const stopped = await engine.run(runId);
    expect(stopped.status).toBe('failed');
    expect(stopped.error).toContain('never force-pushes. Restore it (or delete it) on GitHub');
    expect((await repoOf(fake, 'moved'))?.branches[`maker/${runId}/n-root`]).toBe(foreign);
  }, 60_000);

  it('the default branch moved under the pull request and conflicts: merged in by a voted integration, the veto asked again, then merged', async () => {
    const { fake, dir, engine, runId } = await atVeto();
    // Someone edits, on GitHub's main, a file the result also writes.
    const run = await engine.getRun(runId);
    const rootCommit = run.nodes['root']?.commit as string;
    const written = execFileSync(
      'git',
      ['-C', dir, 'diff', '--name-only', run.baseCommit, rootCommit],
      {
        encoding: 'utf8',
      },
    )
      .trim()
      .split('\n')[0] as string;
    await pushSomeoneElses(fake, 'app', join(await tempDir(), 'someone'), written);
    const theirs = (await repoOf(fake, 'app'))?.branches['main'] as string;

    await engine.answer(runId, 'q-root-veto', 'accept');
    let second = await engine.run(runId);
    expect(second.error).toBeUndefined();
    expect(second.status).toBe('awaiting-human');
    // The integration's judges are seeded by its vote, whose name holds their commit: some runs
    // settle it by vote, others ask a person to pick a candidate first.
    const integration = `q-root-integrate-base-${theirs.slice(0, 12)}-0`;
    if (second.pending[0]?.id === integration) {
      await engine.answer(runId, integration, 'candidate-1');
      second = await engine.run(runId);
      expect(second.error).toBeUndefined();
      expect(second.status).toBe('awaiting-human');
    }
    const again = second.pending[0];
    expect(again?.id).toMatch(/^q-root-veto-[0-9a-f]{12}$/);
    expect(again?.prompt).toContain('main moved on GitHub under the pull request');
    expect(again?.prompt).toContain('conflicts resolved by a voted integration');
    const merged = (await engine.getRun(runId)).nodes['root'];
    expect(['decided', 'human']).toContain(
      merged?.integrations[`base-${theirs.slice(0, 12)}`]?.outcome?.status,
    );

    await engine.answer(runId, again?.id as string, 'accept');
    const done = await engine.run(runId);
    expect(done.status).toBe('done');
    const repo = await repoOf(fake, 'app');
    expect(repo?.pulls).toHaveLength(1);
    expect(repo?.pulls[0]?.merged).toBe(true);
    // main holds their commit and the result.
    const bare = join(fake.root, 'alice', 'app.git');
    expect(
      (await git(bare, ['--git-dir', bare, 'merge-base', '--is-ancestor', theirs, 'main'])).code,
    ).toBe(0);
    expect(
      (await git(bare, ['--git-dir', bare, 'merge-base', '--is-ancestor', rootCommit, 'main']))
        .code,
    ).toBe(0);
  }, 90_000);

  it('a merge GitHub refuses while the default branch has not moved (a protection rule) stops the run; no merge commit is made', async () => {
    const { fake, engine, runId } = await atVeto();
    const rootCommit = (await engine.getRun(runId)).nodes['root']?.commit as string;
    const mainBefore = (await repoOf(fake, 'app'))?.branches['main'];
    // GitHub's answer to a merge a branch protection rule blocks: 405, the base untouched.
    fake.addFault({ kind: 'status', status: 405, method: 'PUT', path: '/pulls/\\d+/merge$' });
    await engine.answer(runId, 'q-root-veto', 'accept');
    const refused = await engine.run(runId);
    expect(refused.status).toBe('failed');
    expect(refused.error).toContain('GitHub refused to merge');
    expect(refused.error).toContain('Injected fault');
    // Nothing merged into the result and nothing pushed: the root and main are where they were.
    const after = await engine.getRun(runId);
    expect(after.nodes['root']?.commit).toBe(rootCommit);
    const repo = await repoOf(fake, 'app');
    expect(repo?.branches[`maker/${runId}/n-root`]).toBe(rootCommit);
    expect(repo?.branches['main']).toBe(mainBefore);
    expect(repo?.pulls[0]?.state).toBe('open');
    // Once GitHub allows it, resume merges the same result.
    const done = await engine.run(runId);
    expect(done.status).toBe('done');
    expect((await repoOf(fake, 'app'))?.pulls[0]?.merged).toBe(true);
  }, 60_000);

  it('a local commit on the default branch, made while the veto waited, is kept when the merged pull request lands locally', async () => {
    const { fake, dir, engine, runId } = await atVeto();
    // The person commits on their main (not pushed) while the question waits.
    await writeFile(join(dir, 'NOTES.md'), 'mine\n');
    expect((await git(dir, ['add', 'NOTES.md'])).code).toBe(0);
    expect((await git(dir, ['commit', '-qm', 'my notes'])).code).toBe(0);
    const mine = (await git(dir, ['rev-parse', 'HEAD'])).stdout.trim();
    await engine.answer(runId, 'q-root-veto', 'accept');
    const done = await engine.run(runId);
    expect(done.status).toBe('done');
    expect((await repoOf(fake, 'app'))?.pulls[0]?.merged).toBe(true);
    // Their commit (and file) are still on main, beside the merged pull request.
    expect((await git(dir, ['merge-base', '--is-ancestor', mine, 'main'])).code).toBe(0);
    const merge = (await repoOf(fake, 'app'))?.pulls[0]?.mergeCommitSha as string;
    expect((await git(dir, ['merge-base', '--is-ancestor', merge, 'main'])).code).toBe(0);
    expect(await readFile(join(dir, 'NOTES.md'), 'utf8')).toBe('mine\n');
    expect((await git(dir, ['status', '--porcelain'])).stdout).toBe('');
  }, 60_000);

  it('a push that landed just before a crash, its lease unsaved, is recognised as MAKER’s own on resume', async () => {
    const { fake, dir, engine, runId, workspace } = await atVeto();
    const run = await engine.getRun(runId);
    const gh = run.github;
    if (gh === undefined) throw new Error('no github record');
    const branch = `maker/${runId}/n-0`;
    const pushed = gh.leases[branch] as string;
    // The state as a crash left it: the lease still at the branch's previous value (its base).
    const record = {
      ...gh,
      leases: { ...gh.leases, [branch]: run.nodes['0']?.baseCommit as string },
    };
    // The branch moves on locally (a descendant of what GitHub holds) and is pushed again.
    const tree = await workspace.treeWithEdits(pushed, [{ path: 'more.txt', content: 'more\n' }]);
    const next = await workspace.commit({
      tree,
      parents: [pushed],
      message: 'more',
      date: new Date('2026-01-01T00:00:00Z'),
    });
    await workspace.setBranch(branch, next, pushed);
    const resumed = remotesFor(workspace, TOKENS.full, () => Promise.resolve())({
      ...run,
      github: record,
    });
    await resumed?.publisher.publish(branch, next);
    expect((await repoOf(fake, 'app'))?.branches[branch]).toBe(next);
    expect(record.leases[branch]).toBe(next);
    expect(dir).toBeDefined();
  }, 60_000);
});

describe('a pull request closed on GitHub before it is merged', () => {
  it('closed because its head branch was deleted: the branch is pushed back, the pull request reopened (said in an event) and merged', async () => {
    // Failed at main: "Pull request … was closed by someone else: nothing was merged. Reopen it,
    // then run maker resume", on every resume.
    const { fake, engine, runId } = await atVeto();
    const root = `maker/${runId}/n-root`;
    await testOctokit(fake).rest.git.deleteRef({
      owner: 'alice',
      repo: 'app',
      ref: `heads/${root}`,
    });
    expect((await repoOf(fake, 'app'))?.pulls[0]?.state).toBe('closed');
    await engine.answer(runId, 'q-root-veto', 'accept');
    const stop = new AbortController();
    const notes: string[] = [];
    const watched = (async () => {
      for await (const e of engine.events(stop.signal))
        if (e.type === 'pull-request' && e.note !== undefined) notes.push(e.note);
    })();
    const done = await engine.run(runId);
    stop.abort();
    await watched;
    expect(done.error).toBeUndefined();
    expect(done.status).toBe('done');
    expect(notes).toEqual([
      `reopened: GitHub closed it when its head branch ${root} was deleted (no one closed it); MAKER pushed the branch back`,
    ]);
    const repo = await repoOf(fake, 'app');
    expect(repo?.pulls).toHaveLength(1);
    expect(repo?.pulls[0]).toMatchObject({ state: 'closed', merged: true });
    expect(repo?.branches[root]).toBe((await engine.getRun(runId)).nodes['root']?.commit);
  }, 120_000);

  it('closed by a person (its branch deleted after): still their veto, nothing reopened or merged', async () => {
    const { fake, engine, runId } = await atVeto();
    const octokit = testOctokit(fake);
    const o = { owner: 'alice', repo: 'app' };
    await octokit.rest.pulls.update({ ...o, pull_number: 1, state: 'closed' });
    await octokit.rest.git.deleteRef({ ...o, ref: `heads/maker/${runId}/n-root` });
    await engine.answer(runId, 'q-root-veto', 'accept');
    const stopped = await engine.run(runId);
    expect(stopped.status).toBe('failed');
    expect(stopped.error).toContain(
      'was closed by someone else: nothing was merged. Reopen it, then run maker resume.',
    );
    expect((await repoOf(fake, 'app'))?.pulls[0]).toMatchObject({
      state: 'closed',
      merged: false,
    });
  }, 120_000);
});
