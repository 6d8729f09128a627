import { execFileSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stateFileSchema, type Run } from '../../src/core/tree/schema.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { startFakeGemini, type FakeGemini } from '../../src/offline/fake-gemini.js';
import {
  startFakeJules,
  type FakeAgentContext,
  type FakeAgentScript,
  type FakeJules,
} from '../../src/offline/fake-jules.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { startFaultProxy, type FaultProxy } from '../../src/offline/fault-proxy.js';
import { projectModel } from '../helpers/project-model.js';
import { expectOneSessionPerSlot } from '../helpers/jules-runs.js';
import { spawnMaker, type MakerResult } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';
import { taskTitle } from '../helpers/prompts.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
const GEMINI_KEY = ['AIza', 'G'.repeat(35)].join('');
const JULES_KEY = 'jules-cli-key-0123456789abcdef';
let gemini: FakeGemini | undefined;
let jules: FakeJules | undefined;
let child: ChildProcess | undefined;
let proxy: FaultProxy | undefined;
afterEach(async () => {
  child?.kill('SIGKILL');
  child = undefined;
  await proxy?.close();
  proxy = undefined;
  await jules?.close();
  await gemini?.close();
  jules = undefined;
  gemini = undefined;
});
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();

/**
 * A Jules agent writing the first file the prompt names; by slot: 1 fails, 2 answers against
 * another commit (stale), 3 sends a patch that does not apply; the others agree.
 */
function agent(context: FakeAgentContext): FakeAgentScript {
  const file = /^Files: ([^,\n]+)/m.exec(context.prompt)?.[1] ?? 'NOTES.md';
  const title = taskTitle(context.prompt) ?? 'task';
  const slot = Number(/cand-(\d+)$/.exec(context.title)?.[1] ?? '0');
  const patch = `diff --git a/${file} b/${file}\nnew file mode 100644\n--- /dev/null\n+++ b/${file}\n@@ -0,0 +1 @@\n+# ${title}\n`;
  if (slot === 1) return { fail: 'The environment could not be set up.' };
  if (slot === 2) return { patch, baseCommitId: 'b'.repeat(40) };
  if (slot === 3)
    return {
      patch: `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -1 +1 @@\n-old\n+new\n`,
    };
  return { patch };
}

/** A repository whose origin is a local bare repository Jules (the fake) reads; both fakes up. */
async function setup(
  onSessionCreated?: (count: number) => void,
  limits: { dailyLimit?: number; clock?: () => number } = {},
) {
  const dir = await tempDir();
  const origin = join(await tempDir(), 'origin.git');
  await openWorkspace(dir, true, workspaceSettings());
  git(dir, 'init', '--quiet', '--initial-branch=main', '--bare', origin);
  git(dir, 'remote', 'add', 'origin', origin);
  git(dir, 'push', '--quiet', 'origin', 'main');
  gemini = await startFakeGemini(projectModel);
  jules = await startFakeJules({
    apiKey: JULES_KEY,
    sources: [{ owner: 'me', repo: 'app', gitDir: origin }],
    agent,
    ...limits,
    ...(onSessionCreated === undefined
      ? {}
      : { onSessionCreated: (_session, count) => onSessionCreated(count) }),
  });
  const env = {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '',
    GEMINI_API_KEY: GEMINI_KEY,
    GOOGLE_GEMINI_BASE_URL: gemini.baseUrl,
    JULES_API_KEY: JULES_KEY,
    JULES_BASE_URL: jules.baseUrl,
    JULES_SOURCE: 'sources/github/me/app',
    JULES_POLL_MS: '2:40',
  };
  return { dir, origin, env, fake: jules };
}

/** `maker <args>` with `env`; the afterEach kills it if a test leaves it running. */
function maker(args: string[], env: Record<string, string>): Promise<MakerResult> {
  const run = spawnMaker(args, { env });
  child = run.child;
  return run.ended.finally(() => {
    if (child === run.child) child = undefined;
  });
}

const RUN = ['--worker', 'jules', '--jules-plan', 'pro', '--hitl', 'auto', '--json', '--no-checks'];
/**
 * A run of one leaf (the idea itself, not split): at least five sessions (slots 1–3 never agree),
 * for the tests where the tree's size is not what they prove.
 */
const ONE_LEAF = ['--max-depth', '0'];

async function loadRun(dir: string): Promise<Run> {
  const state = stateFileSchema.parse(
    JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')),
  );
  const run = Object.values(state.runs)[0];
  if (run === undefined) throw new Error('no run');
  return run;
}

describe('maker run --worker jules (against the fake Jules and Gemini servers)', () => {
  it('samples sessions, flags failed and stale ones, votes, commits, composes and lands', async () => {
    const { dir, origin, env, fake } = await setup();
    const result = await maker(['run', 'a csv to json converter', '--dir', dir, ...RUN], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'done', landed: true });
    const run = await loadRun(dir);
    expect(run.config.workerOptions).toEqual({
      concurrency: 15,
      dailySessions: 100,
      planReview: false,
    });
    const leaves = Object.values(run.nodes).filter((n) => n.kind === 'leaf');
    expect(leaves).toHaveLength(2);
    for (const leaf of leaves) {
      const flags = (leaf.leaf?.draws ?? []).flatMap((d) => d.flags);
      expect(flags.map((f) => f.rule)).toEqual(
        expect.arrayContaining(['worker-failed', 'does-not-apply']),
      );
      expect(flags.map((f) => f.message).join('\n')).toMatch(/Jules session failed/);
      expect(flags.map((f) => f.message).join('\n')).toMatch(/based on b{40}, not the subtask/);
      expect(leaf.leaf?.outcome?.status).toBe('decided');
      // The leaf branch was pushed to origin at the leaf's base, for Jules to start from.
      expect(git(origin, 'rev-parse', `refs/heads/maker/${run.id}/n-${leaf.id}`)).toBe(
        leaf.baseCommit,
      );
      expect(git(dir, 'log', '-1', '--format=%B', `maker/${run.id}/n-${leaf.id}`)).toMatch(
        /Maker-Worker: jules session \d{19,20}/,
      );
    }
    expectOneSessionPerSlot(run, fake);
    // status --node lists each candidate with its verdict, flags and Jules session link.
    const leaf = leaves[0];
    const detail = await maker(['status', '--dir', dir, '--node', leaf?.id ?? ''], env);
    expect(detail.code).toBe(0);
    expect(detail.stdout).toMatch(/candidates: decided/);
    expect(detail.stdout).toMatch(
      /#1 flagged: worker-failed: The Jules session failed: The environment could not be set up\. · session \d+ https:\/\/jules\.google\.com\/session\/\d+/,
    );
    expect(detail.stdout).toMatch(/#0 valid [0-9a-f]{12} \(winner\) · session \d+/);
    expect(git(dir, 'show', 'main:src/convert.py')).toBe('# Write the converter');
    // Real Jules sessions are real work: no commit is marked simulated.
    expect(git(dir, 'log', '--format=%B', 'main')).not.toMatch(/simulated/i);
    expect(git(dir, 'show', 'main:README.md')).toBe('# Write the README');
    // The Jules key reaches neither the state file nor the journal.
    for (const file of ['maker-state.json', 'maker-journal.jsonl'])
      expect(await readFile(join(dir, file), 'utf8')).not.toContain(JULES_KEY);
  }, 60_000);

  it('killed while sessions are being created, resumes with exactly one session per candidate slot', async () => {
    // Crash points: right after a session exists, before its id reaches the client (so only its
    // title can find it again), at the start of sampling and in the middle of the second leaf.
    // The first two fall in the first leaf: their runs are of that leaf alone.
    for (const [killAt, size] of [
      [1, ONE_LEAF],
      [4, ONE_LEAF],
      [7, []],
    ] as const) {
      let killed = false;
      const { dir, env, fake } = await setup((count) => {
        if (count === killAt && child !== undefined) killed = child.kill('SIGKILL');
      });
      const first = await maker(
        ['run', 'a csv to json converter', '--dir', dir, ...RUN, ...size],
        env,
      );
      expect(killed).toBe(true);
      expect(first.signal).toBe('SIGKILL');
      const before = await loadRun(dir);
      expect(before.status).toBe('running');
      const resumed = await maker(['resume', '--dir', dir, '--json'], env);
      expect(resumed.code).toBe(0);
      expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'done' });
      const run = await loadRun(dir);
      expectOneSessionPerSlot(run, fake);
      expect(fake.sessions.size).toBeGreaterThanOrEqual(killAt);
      await jules?.close();
      await gemini?.close();
      jules = undefined;
      gemini = undefined;
    }
  }, 120_000);

  it('stops when the 24-hour session budget is spent, and resumes with a larger one', async () => {
    const { dir, env, fake } = await setup();
    const args = [
      '--worker',
      'jules',
      '--jules-daily-sessions',
      '4',
      '--hitl',
      'auto',
      '--no-checks',
      ...ONE_LEAF,
    ];
    const first = await maker(['run', 'a csv to json converter', '--dir', dir, ...args], env);
    expect(first.code).toBe(1);
    expect(first.stdout).toMatch(
      /Failed: The Jules session budget is spent: 4 sessions started in the last 24 hours \(budget 4\)\..*maker resume --jules-plan pro\|ultra or --jules-daily-sessions N/,
    );
    expect(fake.sessions.size).toBe(4);
    const resumed = await maker(
      ['resume', '--dir', dir, '--jules-daily-sessions', '50', '--json'],
      env,
    );
    expect(resumed.code).toBe(0);
    const run = await loadRun(dir);
    expect(run.config.workerOptions).toEqual({
      concurrency: 3,
      dailySessions: 50,
      planReview: false,
    });
    expect(run.status).toBe('done');
    expectOneSessionPerSlot(run, fake);
    const usage = await maker(['resume', '--dir', dir, '--jules-plan', 'gold'], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--jules-plan must be free, pro or ultra \(got "gold"\)/);
  }, 60_000);

  /**
   * The tree a fault-free `maker run` of the same idea lands (the fakes answer deterministically):
   * run once, for the tests that compare with it.
   */
  let faultFree: Promise<string | undefined> | undefined;
  const faultFreeTree = () => (faultFree ??= runFaultFree());
  async function runFaultFree(): Promise<string | undefined> {
    const { dir, env } = await setup();
    const result = await maker(
      ['run', 'a csv to json converter', '--dir', dir, ...RUN, ...ONE_LEAF],
      env,
    );
    expect(result.code).toBe(0);
    const tree = (await loadRun(dir)).result?.treeHash;
    await jules?.close();
    await gemini?.close();
    jules = undefined;
    gemini = undefined;
    return tree;
  }

  it('stops when Jules fails every call for longer than --jules-outage-seconds, and maker resume completes the same tree', async () => {
    const expected = await faultFreeTree();
    const { dir, env, fake } = await setup((count) => {
      if (count === 2) proxy?.setRules([{ fault: { kind: 'refuse' } }]);
    });
    proxy = await startFaultProxy({ target: fake.baseUrl });
    const viaProxy = { ...env, JULES_BASE_URL: proxy.baseUrl };
    const args = [
      ...['--worker', 'jules', '--jules-plan', 'pro', '--hitl', 'auto', '--no-checks'],
      ...ONE_LEAF,
    ];
    const first = await maker(
      ['run', 'a csv to json converter', '--dir', dir, ...args, '--jules-outage-seconds', '1'],
      viaProxy,
    );
    expect(first.code).toBe(1);
    expect(first.stdout).toMatch(
      /Failed: Jules is unavailable: every call has failed for \d+ s, since \S+ \(the outage limit is 1 s\)\. Last error: no answer \(.+\)\. The state is saved; run maker resume when Jules is back: it re-attaches every session, and nothing is bought twice\. Fix the cause, then: maker resume --dir /,
    );
    expect(first.stdout).not.toMatch(/\.\.|\. \./);
    const stopped = await loadRun(dir);
    expect(stopped.status).toBe('failed');
    expect(stopped.config.workerOptions?.['outageSeconds']).toBe(1);
    // No candidate was flagged for the outage, and every session bought is on its slot.
    const draws = Object.values(stopped.nodes).flatMap((n) => n.leaf?.draws ?? []);
    expect(draws.flatMap((d) => d.flags.map((f) => f.message)).join('\n')).not.toMatch(
      /unavailable|no answer|failed with 5/,
    );
    expect(
      draws
        .map((d) => d.externalId)
        .filter(Boolean)
        .sort(),
    ).toEqual([...fake.sessions.keys()].sort());
    proxy.setRules([]);
    const resumed = await maker(['resume', '--dir', dir, '--json'], viaProxy);
    expect(resumed.code).toBe(0);
    const summary = JSON.parse(resumed.stdout) as { status: string; sessions: number };
    expect(summary.status).toBe('done');
    expect(summary.sessions).toBe(fake.sessions.size);
    const run = await loadRun(dir);
    expectOneSessionPerSlot(run, fake);
    expect(run.result?.treeHash).toBe(expected);
  }, 120_000);

  it('stops at once on Jules’ daily task limit with the time it frees up, and resumes day by day onto the same tree', async () => {
    const expected = await faultFreeTree();
    let clock = 0;
    const { dir, env, fake } = await setup(undefined, { dailyLimit: 4, clock: () => clock });
    const args = [
      ...['--worker', 'jules', '--jules-plan', 'pro', '--hitl', 'auto', '--no-checks'],
      ...ONE_LEAF,
    ];
    const first = await maker(['run', 'a csv to json converter', '--dir', dir, ...args], env);
    expect(first.code).toBe(1);
    expect(first.stdout).toMatch(
      /Failed: Jules refused a new session: the daily task limit of your Jules plan is reached \(Jules said: "You have reached your daily task limit\. Try again later\."\)\. It frees up at \S+Z\. The state is saved; run maker resume then/,
    );
    expect(first.stdout).not.toMatch(/\.\.|\. \./);
    expect(fake.sessions.size).toBe(4);
    expect(fake.requests.filter((r) => r.method === 'POST').length).toBe(5);
    let resumed = first;
    for (let day = 1; resumed.code === 1 && day < 10; day++) {
      expect(resumed.stdout).toMatch(/daily task limit/);
      clock += 86_400_000;
      resumed = await maker(['resume', '--dir', dir], env);
    }
    expect(resumed.code).toBe(0);
    const run = await loadRun(dir);
    expectOneSessionPerSlot(run, fake);
    expect(run.result?.treeHash).toBe(expected);
  }, 120_000);

  it('maker status shows a run’s waits on Jules with until when', async () => {
    const { dir, env } = await setup();
    const args = [
      '--worker',
      'jules',
      '--jules-daily-sessions',
      '1',
      '--hitl',
      'auto',
      '--no-checks',
    ];
    await maker(['run', 'a csv to json converter', '--dir', dir, ...args], env);
    // As a running process leaves it in the state file while it waits.
    const store = makerStateFile(dir);
    const state = await store.load();
    const run = Object.values(state.runs)[0] as Run;
    run.status = 'running';
    const until = new Date(Date.now() + 45_000).toISOString();
    run.waits = [
      {
        id: 'jules-1',
        service: 'jules',
        reason:
          'Jules is failing (503 The service is unavailable.) since 2026-11-23T09:00:00.000Z; retrying until it answers, for at most 10 min.',
        since: new Date().toISOString(),
        until,
      },
    ];
    await store.save(state);
    // …and holding the workspace (a live owner: this test's process), else status shows it interrupted.
    await writeFile(join(dir, 'maker-state.json.lock'), `${process.pid}\n`);
    const status = await maker(['status', '--dir', dir], env);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`Waiting for jules until ${until.slice(11, 19)} UTC (in 4`);
    expect(status.stdout).toMatch(/UTC \(in 4\d s\): Jules is failing \(503/);
    const json = await maker(['status', '--dir', dir, '--json'], env);
    expect(JSON.parse(json.stdout)).toMatchObject({ waits: [{ service: 'jules', until }] });
  });

  it('maker fake-jules serves the Jules API from its own process until its input closes (--stdin-lifetime)', async () => {
    const { origin, env } = await setup();
    const proc = spawnMaker(
      [
        'fake-jules',
        '--source',
        `me/app=${origin}`,
        '--api-key',
        'k-123',
        '--agent',
        'touch',
        '--stdin-lifetime',
      ],
      { env, stdin: true },
    );
    child = proc.child;
    const [line] = (await once(createInterface({ input: proc.child.stdout }), 'line')) as [string];
    const { baseUrl } = JSON.parse(line) as { baseUrl: string };
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1alpha$/);
    const source = await fetch(`${baseUrl}/sources/github/me/app`, {
      headers: { 'X-Goog-Api-Key': 'k-123' },
    });
    expect(await source.json()).toMatchObject({
      name: 'sources/github/me/app',
      githubRepo: { owner: 'me', repo: 'app', defaultBranch: { displayName: 'main' } },
    });
    const denied = await fetch(`${baseUrl}/sessions`, { headers: { 'X-Goog-Api-Key': 'nope' } });
    expect(denied.status).toBe(401);
    const exited = once(proc.child, 'exit');
    proc.stdin?.end();
    expect((await exited)[0]).toBe(0);
  });

  it('refuses to start a jules run without a Jules source, saying how to give one', async () => {
    const { dir, env } = await setup();
    const withoutSource: Record<string, string> = { ...env };
    delete withoutSource['JULES_SOURCE'];
    const result = await maker(['run', 'x', '--dir', dir, '--worker', 'jules'], withoutSource);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /needs the repository on GitHub: its origin remote \(\/.+origin\.git\) is not a GitHub URL.*JULES_SOURCE=sources\/github\/<owner>\/<repo>/,
    );
    // Jules flags on another worker are refused before anything is created.
    const elsewhere = join(await tempDir(), 'not-created');
    const misplaced = await maker(['run', 'x', '--dir', elsewhere, '--jules-plan', 'pro'], env);
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toMatch(
      /--jules-… flags apply to the jules and jules-fake workers only, not to /,
    );
    expect(existsSync(elsewhere)).toBe(false);
  });
});
