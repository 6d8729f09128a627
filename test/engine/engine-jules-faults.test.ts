import { BatchRefPublisher } from '../../src/adapters/git/ref-publisher.js';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { JulesClient } from '../../src/adapters/jules/client.js';
import { JulesWorker } from '../../src/adapters/jules/worker.js';
import { SimPlanner } from '../../src/adapters/sim/project-sim.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import type { Run } from '../../src/core/tree/schema.js';
import type { EngineEvent } from '../../src/engine/events.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { startFakeJules, type FakeFault, type FakeJules } from '../../src/offline/fake-jules.js';
import { startFaultProxy, type FaultProxy, type FaultRule } from '../../src/offline/fault-proxy.js';
import { baseConfig } from '../helpers/engine.js';
import { expectOneSessionPerSlot, slotAgent, treeShape } from '../helpers/jules-runs.js';
import { useTempDirs } from '../helpers/tmp.js';
import { virtualTime } from '../helpers/virtual-time.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
const SESSION_GET = /^\/v1alpha\/sessions\/\d+$/;
const CREATE = /^\/v1alpha\/sessions$/;

interface Setup {
  /** Proxy rules from the start. */
  rules?: readonly FaultRule[];
  /** Called as each session is created at the fake (1-based count), before its reply leaves. */
  onCreated?: (
    count: number,
    proxy: FaultProxy,
    time: ReturnType<typeof virtualTime>,
    session: { id: string },
  ) => void;
  /** A wait the run must have shown (a `wait-start` event whose reason matches). */
  shows?: RegExp;
  /** Faults the fake itself answers with. */
  fault?: (request: { method: string; path: string; count: number }) => FakeFault;
  concurrentLimit?: number;
  dailyLimit?: number;
  /** Virtual ms a session works before it completes (default 60 s). */
  workMs?: number;
}

/**
 * A Jules run over a fault proxy in front of the fake Jules server, everything on one virtual
 * clock: the sessions' work, the outage windows, the client's and the worker's waits, the engine.
 */
async function julesRun(setup: Setup = {}) {
  const time = virtualTime();
  const dir = await tempDir();
  const origin = join(await tempDir(), 'origin.git');
  const workspace = await openWorkspace(dir, true, workspaceSettings());
  git(dir, 'init', '--quiet', '--initial-branch=main', '--bare', origin);
  git(dir, 'remote', 'add', 'origin', origin);
  git(dir, 'push', '--quiet', 'origin', 'main');
  const apiKey = 'jules-faults-key-0123456789';
  const late: { proxy?: FaultProxy } = {};
  const fake: FakeJules = await startFakeJules({
    apiKey,
    sources: [{ owner: 'me', repo: 'app', gitDir: origin }],
    agent: slotAgent,
    workMs: setup.workMs ?? 60_000,
    clock: time.now,
    ...(setup.fault === undefined ? {} : { fault: setup.fault }),
    ...(setup.concurrentLimit === undefined ? {} : { concurrentLimit: setup.concurrentLimit }),
    ...(setup.dailyLimit === undefined ? {} : { dailyLimit: setup.dailyLimit }),
    onSessionCreated: (session, count) => {
      if (late.proxy !== undefined) setup.onCreated?.(count, late.proxy, time, session);
    },
  });
  closers.push(() => fake.close());
  const proxy = await startFaultProxy({
    target: fake.baseUrl,
    clock: time.now,
    ...(setup.rules === undefined ? {} : { rules: setup.rules }),
  });
  late.proxy = proxy;
  closers.push(() => proxy.close());
  const worker = new JulesWorker({
    client: new JulesClient({
      apiKey,
      baseUrl: proxy.baseUrl,
      sleep: time.sleep,
      now: time.now,
      random: () => 0.5,
    }),
    source: 'sources/github/me/app',
    publisher: new BatchRefPublisher({ cwd: workspace.dir, remoteUrl: origin }),
    sleep: time.sleep,
    now: time.now,
    concurrency: 3,
  });
  const events: EngineEvent[] = [];
  const engine = new MakerEngine({
    workspace,
    roles: { planner: new SimPlanner({ seed: 7, depth: 1, errorRate: 0, flagRate: 0 }), worker },
    store: makerStateFile(dir),
    journal: (event) => void events.push(event),
    now: time.date,
  });
  const runId = await engine.create('a tiny tool', {
    ...baseConfig,
    worker: 'jules',
    hitl: 'auto',
    maxDepth: 1,
    maxCandidates: 8,
    maxFlagRate: 0.8,
  });
  return { engine, runId, fake, proxy, time, events, dir };
}

let baseline: { treeHash: string | undefined; shape: ReturnType<typeof treeShape> };
beforeAll(async () => {
  const { engine, runId, fake } = await julesRun();
  const outcome = await engine.run(runId);
  expect(outcome.status).toBe('done');
  const run = await engine.getRun(runId);
  expectOneSessionPerSlot(run, fake);
  baseline = { treeHash: run.result?.treeHash, shape: treeShape(run) };
  for (const close of closers.splice(0).reverse()) await close();
}, 60_000);

/** The run ended exactly as the fault-free run did, having bought one session per slot. */
function expectBaseline(run: Run, fake: FakeJules): void {
  expect(run.status).toBe('done');
  expect(run.result?.treeHash).toBe(baseline.treeHash);
  expect(treeShape(run)).toEqual(baseline.shape);
  expectOneSessionPerSlot(run, fake);
  expect(run.waits ?? []).toEqual([]);
}

/** A stopped run changed nothing the fault-free run would not have: no node, flag or verdict of its own. */
function expectNothingRewritten(run: Run, fake: FakeJules): void {
  const ids = new Set(baseline.shape.map((n) => n.id));
  for (const node of treeShape(run)) {
    expect(ids.has(node.id)).toBe(true);
    const expected = baseline.shape.find((n) => n.id === node.id)?.draws ?? [];
    node.draws.forEach((verdict, slot) => {
      if (verdict !== 'started:') expect(verdict).toBe(expected[slot]);
    });
  }
  // Every session bought so far is on its slot, so a resume re-attaches it.
  const recorded = Object.values(run.nodes).flatMap((n) =>
    (n.leaf?.draws ?? []).map((d) => d.externalId).filter((id) => id !== undefined),
  );
  expect(recorded.sort()).toEqual([...fake.sessions.keys()].sort());
}

describe('the Jules worker under network faults: runs that complete', () => {
  const cases: [string, Setup][] = [
    [
      'the reply to the 1st create is lost after Jules created the session',
      { rules: [{ method: 'POST', path: CREATE, nth: [1], fault: { kind: 'drop-reply' } }] },
    ],
    [
      'the reply to the 4th create is lost after Jules created the session',
      { rules: [{ method: 'POST', path: CREATE, nth: [4], fault: { kind: 'drop-reply' } }] },
    ],
    [
      'a gateway answers 503 after Jules created the session',
      {
        rules: [
          { method: 'POST', path: CREATE, nth: [2], fault: { kind: 'status-after', status: 503 } },
        ],
      },
    ],
    [
      // The outage. How many retries fit in the window depends on the machine's speed (other
      // polls move the virtual clock on while a request is in flight), so the visible wait is
      // asserted by the counted case below.
      'every GET fails for 40 s while the sessions poll',
      {
        onCreated: (count, proxy, time) => {
          if (count !== 1) return;
          const during = { from: time.now(), to: time.now() + 40_000 };
          proxy.setRules([{ method: 'GET', during, fault: { kind: 'refuse', status: 503 } }]);
        },
      },
    ],
    [
      // Counted, not timed: on the virtual clock, other sessions' polls move time on while a failing
      // request is in flight, so a window in time may hold only a retry or two on a busy machine.
      'the first session’s polls fail 8 times in a row (about 30 s of backoff)',
      {
        onCreated: (count, proxy, _time, session) => {
          if (count !== 1) return;
          const path = new RegExp(`/sessions/${session.id}$`);
          const nth = [1, 2, 3, 4, 5, 6, 7, 8];
          proxy.setRules([{ method: 'GET', path, nth, fault: { kind: 'refuse', status: 503 } }]);
        },
        shows: /Jules is failing/,
      },
    ],
    [
      'Jules answers a concurrent-limit 429 while the run’s own sessions are still running',
      { concurrentLimit: 2, workMs: 30 * 60_000, shows: /concurrent task limit/ },
    ],
  ];

  it.each(cases)('%s: one session per slot, the fault-free tree', async (_name, setup) => {
    const { engine, runId, fake, proxy, events } = await julesRun(setup);
    const outcome = await engine.run(runId);
    expect(outcome.error).toBeUndefined();
    expectBaseline(await engine.getRun(runId), fake);
    if (setup.concurrentLimit === undefined)
      expect(proxy.log.some((r) => r.fault !== undefined)).toBe(true);
    else expect(fake.requests.length).toBeGreaterThan(0);
    if (setup.shows !== undefined) {
      const waits = events.filter((e) => e.type === 'wait-start');
      expect(waits.map((w) => (w.type === 'wait-start' ? w.reason : ''))).toContainEqual(
        expect.stringMatching(setup.shows),
      );
      expect(events.filter((e) => e.type === 'wait-end')).toHaveLength(waits.length);
    }
  });
});

describe('the Jules worker under network faults: runs that stop, and resume', () => {
  it('stops when every call has failed for longer than the tolerance, rewriting nothing; a resume completes the same tree', async () => {
    const { engine, runId, fake, proxy } = await julesRun({
      onCreated: (count, p) => {
        if (count === 2) p.setRules([{ fault: { kind: 'refuse' } }]);
      },
    });
    const stopped = await engine.run(runId);
    expect(stopped.status).toBe('failed');
    expect(stopped.error).toMatch(
      /^Jules is unavailable: every call has failed for 10 min, since .+ \(the outage limit is 10 min\)\..*maker resume.*re-attaches every session/,
    );
    expect(stopped.error).not.toMatch(/\.\.|\. \./);
    const run = await engine.getRun(runId);
    expectNothingRewritten(run, fake);
    // The creates under way when the outage began (one per slot at most), and none after.
    expect(fake.sessions.size).toBeLessThanOrEqual(3);
    expect(proxy.log.filter((r) => r.fault !== undefined).length).toBeGreaterThan(10);
    proxy.setRules([]);
    expect((await engine.run(runId)).status).toBe('done');
    expectBaseline(await engine.getRun(runId), fake);
  });

  it('stops on a Retry-After beyond the cap, saying when to resume; a resume then completes the same tree', async () => {
    let polls = 0;
    const { engine, runId, fake, time } = await julesRun({
      fault: ({ method, path }) =>
        method === 'GET' && SESSION_GET.test(path) && ++polls === 4
          ? { status: 429, retryAfter: '3600' }
          : undefined,
    });
    const stopped = await engine.run(runId);
    expect(stopped.status).toBe('failed');
    expect(stopped.error).toMatch(
      /^Jules asked MAKER to wait 60 min \(Retry-After 3600 s\), longer than the 60 s it waits\. The state is saved; run maker resume after (\S+Z): it re-attaches every session\.$/,
    );
    const resumeAt = Date.parse(/after (\S+Z)/.exec(stopped.error ?? '')?.[1] ?? '');
    expect(resumeAt - time.now()).toBeGreaterThan(3_500_000);
    expectNothingRewritten(await engine.getRun(runId), fake);
    time.advance(3_600_000);
    expect((await engine.run(runId)).status).toBe('done');
    expectBaseline(await engine.getRun(runId), fake);
  });

  it('stops at once on a daily-limit 429 with the time the quota frees up, and goes on a day later', async () => {
    const { engine, runId, fake, time } = await julesRun({ dailyLimit: 4 });
    const stopped = await engine.run(runId);
    expect(stopped.status).toBe('failed');
    expect(stopped.error).toMatch(
      /^Jules refused a new session: the daily task limit of your Jules plan is reached \(Jules said: "You have reached your daily task limit\. Try again later\."\)\. It frees up at (\S+Z)\./,
    );
    // A day after one of the day's sessions started (which one depends on the creates still in
    // flight when Jules refused: the simulated clock moves while the run polls).
    const freesAt = Date.parse(/frees up at (\S+Z)/.exec(stopped.error ?? '')?.[1] ?? '');
    const started = [...fake.sessions.values()].map((s) => s.startedAt);
    expect(freesAt).toBeGreaterThanOrEqual(Math.min(...started) + 86_400_000);
    expect(freesAt).toBeLessThanOrEqual(time.now() + 86_400_000);
    expect(stopped.error).toMatch(/maker resume/);
    // Stopped at once: the refused creates (those sent together when slots freed, at most the cap
    // of 3) were not retried, and nothing was created or changed after them. A read of a session
    // already running may still land after the refusal (it was under way on its own timer), so
    // only reads may follow.
    const creates = fake.requests.filter((r) => r.method === 'POST' && CREATE.test(r.path));
    expect(fake.sessions.size).toBe(4);
    const refused = creates.length - 4;
    expect(refused).toBeGreaterThanOrEqual(1);
    expect(refused).toBeLessThanOrEqual(3);
    const firstRefused = fake.requests.indexOf(creates[4] as (typeof creates)[number]);
    const after = fake.requests.slice(firstRefused);
    expect(after.filter((r) => r.method === 'POST' && CREATE.test(r.path))).toHaveLength(refused);
    expect(after.filter((r) => r.method !== 'GET' && !CREATE.test(r.path))).toEqual([]);
    expectNothingRewritten(await engine.getRun(runId), fake);
    let outcome = stopped;
    for (let day = 1; outcome.status === 'failed' && day < 10; day++) {
      expect(outcome.error).toMatch(/daily task limit/);
      time.advance(86_400_000);
      outcome = await engine.run(runId);
    }
    expectBaseline(await engine.getRun(runId), fake);
  });
});
