import { BatchRefPublisher } from '../../src/adapters/git/ref-publisher.js';
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JulesClient } from '../../src/adapters/jules/client.js';
import { JulesWorker } from '../../src/adapters/jules/worker.js';
import { SimPlanner } from '../../src/adapters/sim/project-sim.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { MakerEngine, type RunOutcome } from '../../src/engine/maker-engine.js';
import type { Question } from '../../src/core/tree/schema.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import {
  startFakeJules,
  type FakeAgentContext,
  type FakeAgentScript,
  type FakeJules,
} from '../../src/offline/fake-jules.js';
import { baseConfig } from '../helpers/engine.js';
import { useTempDirs } from '../helpers/tmp.js';
import { taskTitle } from '../helpers/prompts.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
let fake: FakeJules | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();

/** A fake Jules agent that writes the subtask's index.md from its prompt, with faults by candidate slot. */
function agent(context: FakeAgentContext): FakeAgentScript {
  const dir = /^Files: ([^,\n]+\/)/m.exec(context.prompt)?.[1] ?? 'src/';
  const title = taskTitle(context.prompt) ?? 'task';
  const slot = Number(/cand-(\d+)$/.exec(context.title)?.[1] ?? '0');
  if (slot === 1) return { fail: 'The environment could not be set up.' };
  if (slot === 2)
    return {
      patch:
        'diff --git a/missing.txt b/missing.txt\n--- a/missing.txt\n+++ b/missing.txt\n@@ -1 +1 @@\n-a\n+b\n',
    };
  return {
    patch: `diff --git a/${dir}index.md b/${dir}index.md\nnew file mode 100644\n--- /dev/null\n+++ b/${dir}index.md\n@@ -0,0 +1 @@\n+# ${title}\n`,
  };
}

async function julesEngine(
  script: (context: FakeAgentContext) => FakeAgentScript,
  hitl: 'auto' | 'defer' = 'auto',
  options: {
    planReview?: boolean;
    dailySessions?: number;
    now?: () => Date;
    source?: string;
    /** Simulated work per session, measured on `clock`. */
    work?: { ms: number; clock: () => number };
  } = {},
) {
  const dir = await tempDir();
  const origin = join(await tempDir(), 'origin.git');
  const workspace = await openWorkspace(dir, true, workspaceSettings());
  git(dir, 'init', '--quiet', '--initial-branch=main', '--bare', origin);
  git(dir, 'remote', 'add', 'origin', origin);
  git(dir, 'push', '--quiet', 'origin', 'main');
  const apiKey = 'jules-test-key-0123456789';
  fake = await startFakeJules({
    apiKey,
    sources: [{ owner: 'me', repo: 'app', gitDir: origin }],
    agent: script,
    ...(options.work === undefined ? {} : { workMs: options.work.ms, clock: options.work.clock }),
  });
  const worker = new JulesWorker({
    client: new JulesClient({ apiKey, baseUrl: fake.baseUrl, sleep: () => Promise.resolve() }),
    source: options.source ?? 'sources/github/me/app',
    publisher: new BatchRefPublisher({ cwd: workspace.dir, remoteUrl: origin }),
    sleep: () => Promise.resolve(),
    concurrency: 3,
    ...(options.planReview === undefined ? {} : { planReview: options.planReview }),
    ...(options.dailySessions === undefined ? {} : { dailySessions: options.dailySessions }),
  });
  const engine = new MakerEngine({
    workspace,
    roles: { planner: new SimPlanner({ seed: 7, depth: 1, errorRate: 0, flagRate: 0 }), worker },
    store: makerStateFile(dir),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const runId = await engine.create('a tiny tool', {
    ...baseConfig,
    hitl,
    worker: 'jules',
    maxDepth: 1,
    maxCandidates: 8,
    maxFlagRate: 0.8,
  });
  return { dir, origin, engine, runId, fake, worker };
}

/** Answers every pending question with `pick`, and resumes, until the run is no longer waiting. */
async function answerAll(
  engine: MakerEngine,
  runId: string,
  pick: (q: Question) => string,
): Promise<RunOutcome> {
  let outcome = await engine.run(runId);
  for (let round = 0; round < 20 && outcome.status === 'awaiting-human'; round++) {
    for (const q of outcome.pending) await engine.answer(runId, q.id, pick(q));
    outcome = await engine.run(runId);
  }
  return outcome;
}

describe('MakerEngine with the Jules worker (against the fake Jules server)', () => {
  it('samples sessions on pushed leaf branches, flags failed and stale ones, votes, commits and composes', async () => {
    const { dir, origin, engine, runId, fake } = await julesEngine(agent);
    const outcome = await engine.run(runId);
    expect(outcome.error).toBeUndefined();
    expect(outcome.status).toBe('done');
    const run = await engine.getRun(runId);
    const leaves = Object.values(run.nodes).filter((n) => n.kind === 'leaf');
    expect(leaves.length).toBeGreaterThan(1);
    for (const leaf of leaves) {
      const rules = (leaf.leaf?.draws ?? []).flatMap((d) => d.flags.map((f) => f.rule));
      expect(rules).toEqual(expect.arrayContaining(['worker-failed', 'does-not-apply']));
      // Every candidate slot is one session, recorded by id; the leaf branch was published for Jules.
      for (const draw of leaf.leaf?.draws ?? [])
        expect(fake.sessions.get(draw.externalId ?? '')?.title).toBe(
          `maker ${runId} n-${leaf.id} cand-${draw.slot}`,
        );
      expect(git(origin, 'rev-parse', `refs/heads/maker/${runId}/n-${leaf.id}`)).toBe(
        leaf.baseCommit,
      );
      expect(git(dir, 'log', '--format=%B', '-1', `maker/${runId}/n-${leaf.id}`)).toMatch(
        /Maker-Worker: jules session \d+/,
      );
    }
    const sessions = leaves.reduce((sum, leaf) => sum + (leaf.leaf?.draws.length ?? 0), 0);
    expect(fake.sessions.size).toBe(sessions);
    expect(git(dir, 'ls-tree', '-r', '--name-only', 'main')).toMatch(/index\.md/);
  });

  it('red-flags a session that keeps asking as stuck (its own rule), archived, and the run goes on', async () => {
    // Failed at main: slot 1's session was answered after every question until its time limit,
    // and its flag was a plain worker-failed one.
    const { engine, runId, fake } = await julesEngine((context) =>
      /cand-1$/.test(context.title)
        ? { askFeedback: 'Which one?', keepsAsking: true }
        : agent(context),
    );
    const outcome = await engine.run(runId);
    expect(outcome.status).toBe('done');
    const run = await engine.getRun(runId);
    const stuck = Object.values(run.nodes)
      .flatMap((n) => n.leaf?.draws ?? [])
      .flatMap((d) => d.flags)
      .filter((f) => f.rule === 'session-stuck');
    expect(stuck.length).toBeGreaterThan(0);
    for (const flag of stuck)
      expect(flag.message).toMatch(
        /asked again after 5 answers \(at most 5 per session\): it is stuck, so it was archived/,
      );
    const archived = fake.requests.filter((r) => r.path.endsWith(':archive')).length;
    expect(archived).toBe(stuck.length);
  });

  it('turns an agent’s question into a clarify question, deferred, answered, and resumed without new sessions', async () => {
    const asking = (context: FakeAgentContext): FakeAgentScript =>
      context.messages.length === 0 && /cand-0$/.test(context.title)
        ? { askFeedback: 'Markdown or plain text?' }
        : agent(context);
    const { engine, runId, fake } = await julesEngine(asking, 'defer');
    let outcome = await engine.run(runId);
    expect(outcome.status).toBe('awaiting-human');
    const questions = outcome.pending.filter((q) => q.prompt === 'Markdown or plain text?');
    expect(questions.length).toBeGreaterThan(0);
    const sessionsBefore = fake.sessions.size;
    for (let round = 0; round < 10 && outcome.status === 'awaiting-human'; round++) {
      for (const q of outcome.pending)
        await engine.answer(
          runId,
          q.id,
          q.kind === 'veto' ? 'accept' : q.allowText ? 'Markdown' : (q.options[0]?.id ?? ''),
        );
      outcome = await engine.run(runId);
    }
    expect(outcome.status).toBe('done');
    // The question slots re-attached to their sessions: every session belongs to exactly one slot.
    const run = await engine.getRun(runId);
    const slots = Object.values(run.nodes).flatMap((n) => n.leaf?.draws ?? []);
    expect(new Set(slots.map((d) => d.externalId)).size).toBe(slots.length);
    expect(fake.sessions.size).toBe(slots.length);
    expect(fake.sessions.size).toBeGreaterThanOrEqual(sessionsBefore);
    const asked = run.questions.filter((q) => q.prompt === 'Markdown or plain text?');
    expect(asked.length).toBeGreaterThanOrEqual(questions.length);
    expect(asked.every((q) => q.answer?.text === 'Markdown')).toBe(true);
    expect(fake.requests.filter((r) => r.path.endsWith(':sendMessage')).length).toBe(asked.length);
  });

  it('with plan review, each session’s plan is a veto question: approved plans go on, vetoed ones are red flags', async () => {
    const { engine, runId, fake } = await julesEngine(agent, 'defer', { planReview: true });
    const outcome = await answerAll(engine, runId, (q) =>
      q.kind !== 'veto' || q.id === 'q-root-veto'
        ? q.kind === 'veto'
          ? 'accept'
          : (q.options[0]?.id ?? 'x')
        : /worker-4-plan$/.test(q.id)
          ? 'veto'
          : 'approve',
    );
    expect(outcome.status).toBe('done');
    const run = await engine.getRun(runId);
    const plans = run.questions.filter((q) => q.id.endsWith('-plan'));
    expect(plans.length).toBeGreaterThan(0);
    for (const q of plans) {
      expect(q.kind).toBe('veto');
      expect(q.options.map((o) => o.id)).toEqual(['approve', 'veto']);
      expect(q.options[0]?.detail).toMatch(/^1\. maker r/);
    }
    const approved = plans.filter((q) => q.answer?.optionId === 'approve').length;
    const vetoed = plans.filter((q) => q.answer?.optionId === 'veto').length;
    expect(vetoed).toBeGreaterThan(0);
    expect(fake.requests.filter((r) => r.path.endsWith(':approvePlan'))).toHaveLength(approved);
    const messages = Object.values(run.nodes)
      .flatMap((n) => n.leaf?.draws ?? [])
      .flatMap((d) => d.flags.map((f) => f.message));
    expect(messages.filter((m) => /vetoed the plan/.test(m))).toHaveLength(vetoed);
    // Deferred plan questions re-attached to their sessions: one session per slot.
    const slots = Object.values(run.nodes).flatMap((n) => n.leaf?.draws ?? []);
    expect(fake.sessions.size).toBe(slots.length);
  });

  it('keeps a 24-hour session budget across runs in the state file, stops when it is spent, and goes on a day later', async () => {
    let now = new Date('2026-11-23T09:00:00Z');
    const { dir, engine, runId, fake } = await julesEngine(agent, 'auto', {
      dailySessions: 6,
      now: () => now,
    });
    const outcome = await engine.run(runId);
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(
      /Jules session budget is spent: 6 sessions started in the last 24 hours \(budget 6\)\. The next can start at 2026-11-24T09:00:00\.000Z/,
    );
    expect(fake.sessions.size).toBe(6);
    const saved = JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')) as {
      ledger: { sessionStarts: Record<string, string[]> };
    };
    expect(saved.ledger.sessionStarts['jules']).toHaveLength(6);
    // A second run in the same workspace shares the spent budget.
    const second = await engine.create('another tool', (await engine.getRun(runId)).config);
    expect((await engine.run(second)).error).toMatch(/budget is spent/);
    expect(fake.sessions.size).toBe(6);
    // Each day a new budget: the run goes on, never more than 6 sessions a day.
    let days = 0;
    let outcome2 = outcome;
    while (outcome2.status === 'failed') {
      expect(outcome2.error).toMatch(/budget is spent/);
      expect(fake.sessions.size).toBe(6 * (days + 1));
      days += 1;
      now = new Date(Date.parse('2026-11-23T09:00:01Z') + days * 86_400_000);
      outcome2 = await engine.run(runId);
    }
    expect(outcome2.status).toBe('done');
    expect(days).toBeGreaterThanOrEqual(1);
    const ledger = (await engine.state()).ledger?.sessionStarts['jules'] ?? [];
    expect(ledger.length).toBe(fake.sessions.size - 6 * days);
    expect(ledger.length).toBeLessThanOrEqual(6);
  });

  it('asks to connect a repository Jules cannot see, and continues once it is connected', async () => {
    const { engine, runId, fake, origin } = await julesEngine(agent, 'defer', {
      source: 'sources/github/me/later',
    });
    let outcome = await engine.run(runId);
    expect(outcome.status).toBe('awaiting-human');
    expect(outcome.pending.map((q) => [q.id, q.kind, q.nodeId])).toEqual([
      ['q-jules-source-0', 'select', null],
    ]);
    expect(outcome.pending[0]?.prompt).toMatch(/Jules cannot see me\/later.*jules\.google\.com/);
    expect(fake.sessions.size).toBe(0);
    fake.addSource({ owner: 'me', repo: 'later', gitDir: origin });
    await engine.answer(runId, 'q-jules-source-0', 'connected');
    outcome = await answerAll(engine, runId, (q) =>
      q.kind === 'veto' ? 'accept' : (q.options[0]?.id ?? 'x'),
    );
    expect(outcome.status).toBe('done');
    expect(fake.sessions.size).toBeGreaterThan(0);
  });

  it('stops every slot at once when the budget is spent, and a resume re-attaches the sessions in flight', async () => {
    let now = new Date('2026-11-23T09:00:00Z');
    let frozen = true;
    let julesTime = 0;
    const { engine, runId, fake } = await julesEngine(agent, 'auto', {
      dailySessions: 2,
      now: () => now,
      // Sessions stay in progress while Jules' clock is frozen; then each read moves it 600 ms.
      work: { ms: 1000, clock: () => (frozen ? julesTime : (julesTime += 600)) },
    });
    const stopped = await engine.run(runId);
    expect(stopped.status).toBe('failed');
    expect(stopped.error).toMatch(/budget is spent: 2 sessions/);
    expect(fake.sessions.size).toBe(2);
    expect([...fake.sessions.values()].every((s) => s.state !== 'COMPLETED')).toBe(true);
    const inFlight = Object.values((await engine.getRun(runId)).nodes)
      .flatMap((n) => n.leaf?.draws ?? [])
      .filter((d) => d.status === 'started' && d.externalId !== undefined);
    expect(inFlight.map((d) => d.externalId).sort()).toEqual([...fake.sessions.keys()].sort());
    frozen = false;
    now = new Date('2026-11-24T09:00:01Z');
    let outcome = await engine.run(runId);
    for (let day = 2; outcome.status === 'failed' && day < 10; day++) {
      now = new Date(Date.parse('2026-11-23T09:00:01Z') + day * 86_400_000);
      outcome = await engine.run(runId);
    }
    expect(outcome.status).toBe('done');
    const slots = Object.values((await engine.getRun(runId)).nodes).flatMap(
      (n) => n.leaf?.draws ?? [],
    );
    // The sessions in flight at the stop were re-attached, never created again.
    for (const d of inFlight)
      expect(slots.filter((x) => x.externalId === d.externalId)).toHaveLength(1);
    expect(fake.sessions.size).toBe(slots.length);
  });
});
