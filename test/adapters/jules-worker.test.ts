import { describe, expect, it } from 'vitest';
import { JulesClient } from '../../src/adapters/jules/client.js';
import { JulesWorker, SessionBudgetError } from '../../src/adapters/jules/worker.js';
import { abortableSleep } from '../../src/core/sleep.js';
import { julesQuotaFault, startFakeJules } from '../../src/offline/fake-jules.js';
import { PATCH, useJulesWorkers, workerOn } from '../helpers/jules-worker.js';
import { virtualTime } from '../helpers/virtual-time.js';

const { held, setup } = useJulesWorkers();
describe('JulesWorker', () => {
  it('creates one session per slot, records its id before waiting, and returns the changeSet', async () => {
    const { worker, task, published, fake: server } = await setup();
    const recorded: string[] = [];
    const out = await worker.run(task, 4, undefined, {
      recordExternalId: (id) => (recorded.push(id), Promise.resolve()),
    });
    expect(out).toMatchObject({ ok: true, patch: PATCH, externalId: recorded[0] });
    expect([...server.sessions.values()].map((s) => s.title)).toEqual(['maker r1 n-0-1 cand-4']);
    expect(published).toEqual(['maker/r1/n-0-1']);
  });

  it('re-attaches by recorded id, or by title when the id was lost in a crash; never a second session', async () => {
    const { worker, task, fake: server } = await setup();
    const first = await worker.run(task, 0);
    expect(first.ok).toBe(true);
    const byId = await worker.run(task, 0, undefined, {
      externalId: first.ok ? (first.externalId ?? '') : '',
    });
    expect(byId.ok && byId.externalId).toBe(first.ok && first.externalId);
    const recorded: string[] = [];
    const byTitle = await worker.run(task, 0, undefined, {
      resumed: true,
      recordExternalId: (id) => (recorded.push(id), Promise.resolve()),
    });
    expect(recorded).toEqual([first.ok ? first.externalId : '']);
    expect(byTitle.ok).toBe(true);
    expect(server.sessions.size).toBe(1);
  });

  it('takes the patch from the session outputs, and from the last changeSet activity only when outputs lack it', async () => {
    for (const onlyInActivities of [false, true]) {
      const {
        worker,
        task,
        fake: server,
      } = await setup(() => ({
        patch: PATCH,
        patchOnlyInActivities: onlyInActivities,
      }));
      const out = await worker.run(task, 0);
      expect(out).toMatchObject({ ok: true, patch: PATCH });
      const reads = server.requests.filter((r) => r.path.endsWith('/activities')).length;
      expect(reads).toBe(onlyInActivities ? 1 : 0);
      await held.fake?.close();
      held.fake = undefined;
    }
  });

  it('turns failures, questions, missing and stale patches into red-flag reasons', async () => {
    const cases: [Parameters<typeof startFakeJules>[0]['agent'], RegExp][] = [
      [() => ({ fail: 'boom' }), /failed: boom/],
      [() => ({ askFeedback: 'Which color?' }), /stopped to ask: "Which color\?"/],
      [() => ({}), /without a changeSet/],
    ];
    for (const [script, reason] of cases) {
      const { worker, task } = await setup(script);
      const out = await worker.run(task, 0);
      expect(out.ok).toBe(false);
      expect(!out.ok && out.reason).toMatch(reason);
      await held.fake?.close();
      held.fake = undefined;
    }
    const { worker, task } = await setup();
    const stale = await worker.run({ ...task, baseCommit: 'f'.repeat(40) }, 0);
    expect(!stale.ok && stale.reason).toMatch(
      /based on [0-9a-f]{40}, not the subtask's base f{40}/,
    );
  });
});

describe('the session budget and integrations', () => {
  it('reserves each new session against the daily budget before creating it; a refusal creates nothing', async () => {
    const { task, fake: server, gitDir } = await setup();
    const budgets: number[] = [];
    let left = 1;
    const worker = workerOn(server, gitDir, { dailySessions: 7 });
    const reserveSession = (budget: { limit: number; windowMs: number }) => {
      budgets.push(budget.limit, budget.windowMs);
      return Promise.resolve(
        left-- > 0
          ? { ok: true as const }
          : { ok: false as const, used: 7, nextAt: new Date('2026-11-24T08:00:00Z') },
      );
    };
    const first = await worker.run(task, 0, undefined, { reserveSession });
    expect(first.ok).toBe(true);
    const error = await worker.run(task, 1, undefined, { reserveSession }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionBudgetError);
    expect((error as Error).message).toMatch(
      /7 sessions started in the last 24 hours \(budget 7\)\. The next can start at 2026-11-24T08:00:00\.000Z: resume the run then, or now with a larger budget/,
    );
    expect(budgets).toEqual([7, 86_400_000, 7, 86_400_000]);
    expect(server.sessions.size).toBe(1);
    // A re-attach by recorded id creates nothing, so it reserves nothing.
    const again = await worker.run(task, 0, undefined, {
      reserveSession,
      externalId: first.ok ? (first.externalId ?? '') : '',
    });
    expect(again.ok).toBe(true);
    expect(budgets).toHaveLength(4);
  });

  it.each([
    [
      'a rate limit (429 with Retry-After 0), for longer than the outage tolerance',
      { status: 429, retryAfter: '0' },
      'unavailable',
      /^Jules is unavailable: every call has failed for 60 s, since \S+ \(the outage limit is 60 s\)\. Last error: 429 injected fault, Retry-After 0 s\. The state is saved; run maker resume/,
    ],
    [
      'a concurrent-task limit held by sessions started elsewhere',
      julesQuotaFault('concurrent'),
      'unavailable',
      /^Jules' concurrent task limit has been reached for 60 s while none of this run's sessions is running: sessions started elsewhere hold it/,
    ],
    [
      'a daily task limit',
      julesQuotaFault('daily', { retryAfterS: 7200 }),
      'session-budget',
      /^Jules refused a new session: the daily task limit of your Jules plan is reached \(Jules said: "You have reached your daily task limit\. Try again later\."\)\. It frees up at 2026-11-23T11:00:00\.000Z\./,
    ],
  ] as const)('stops (never flags the candidate) on %s', async (_name, answer, code, message) => {
    const { task, gitDir } = await setup();
    await held.fake?.close();
    held.fake = await startFakeJules({
      apiKey: 'jules-worker-key-0123456789',
      sources: [{ owner: 'me', repo: 'app', gitDir }],
      agent: () => ({ patch: PATCH }),
      fault: ({ method, path }) =>
        method === 'POST' && path === '/v1alpha/sessions' ? answer : undefined,
    });
    const time = virtualTime();
    const waits: string[] = [];
    const worker = workerOn(held.fake, gitDir, {
      client: new JulesClient({
        apiKey: 'jules-worker-key-0123456789',
        baseUrl: held.fake.baseUrl,
        sleep: time.sleep,
        now: time.now,
        outageMs: 60_000,
      }),
      sleep: time.sleep,
      now: time.now,
    });
    const error = await worker
      .run(task, 0, undefined, {
        wait: (w) => (waits.push(w.reason), () => undefined),
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: code === 'unavailable' ? 'api-call' : code });
    if (code === 'unavailable') expect(error).toMatchObject({ kind: 'unavailable' });
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toMatch(/\.\.|\. \./);
    expect(held.fake.sessions.size).toBe(0);
    const creates = held.fake.requests.filter((r) => r.method === 'POST').length;
    if (code === 'session-budget') expect(creates).toBe(1);
    else {
      expect(creates).toBeGreaterThan(1);
      expect(waits.length).toBe(creates - 1);
    }
  });

  it('hands merge-conflict integrations to its integration worker instead of Jules', async () => {
    const { task, fake: server } = await setup();
    const seen: number[] = [];
    const worker = new JulesWorker({
      client: new JulesClient({ apiKey: 'k', baseUrl: server.baseUrl }),
      source: 'sources/github/me/app',
      publisher: { publish: () => Promise.resolve() },
      integrations: {
        id: 'stand-in',
        run: (_task, slot) => (seen.push(slot), Promise.resolve({ ok: true, edits: [] })),
      },
    });
    const integration = { ...task, integration: { conflicts: ['a.txt'], ours: [], theirs: [] } };
    expect(await worker.run(integration, 3)).toEqual({ ok: true, edits: [] });
    expect(seen).toEqual([3]);
    expect(server.requests).toHaveLength(0);
  });
});

describe('a session whose later call fails', () => {
  it('keeps the session id on the flagged candidate, so the run counts and can re-attach it', async () => {
    const { task, gitDir } = await setup();
    await held.fake?.close();
    held.fake = await startFakeJules({
      apiKey: 'jules-worker-key-0123456789',
      sources: [{ owner: 'me', repo: 'app', gitDir }],
      agent: () => ({ patch: PATCH }),
      fault: ({ method, path }) =>
        method === 'GET' && /^\/v1alpha\/sessions\/\d+$/.test(path)
          ? { status: 400, message: 'Request contains an invalid argument.' }
          : undefined,
    });
    const recorded: string[] = [];
    const out = await workerOn(held.fake, gitDir, {}).run(task, 0, undefined, {
      recordExternalId: (id) => (recorded.push(id), Promise.resolve()),
    });
    expect(held.fake.sessions.size).toBe(1);
    expect(recorded).toEqual([...held.fake.sessions.keys()]);
    expect(out).toEqual({
      ok: false,
      externalId: recorded[0],
      reason: `Jules: Jules GET /sessions/${recorded[0]} failed with 400: Request contains an invalid argument.`,
    });
  });
});

describe('long sessions', () => {
  it('polls one session 100 times under one run signal without a MaxListenersExceededWarning', async () => {
    const { task, gitDir } = await setup();
    await held.fake?.close();
    let polls = 0;
    held.fake = await startFakeJules({
      apiKey: 'jules-worker-key-0123456789',
      sources: [{ owner: 'me', repo: 'app', gitDir }],
      agent: () => ({ patch: PATCH }),
      // The session's work is measured in polls: it completes at the 100th.
      workMs: 100,
      clock: () => polls,
      fault: ({ method, path }) => {
        if (method === 'GET' && /^\/v1alpha\/sessions\/\d+$/.test(path)) polls += 1;
        return undefined;
      },
    });
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const worker = workerOn(held.fake, gitDir, {
        sleep: abortableSleep,
        pollMs: { initial: 1, max: 1 },
      });
      const out = await worker.run(task, 0, new AbortController().signal);
      expect(out.ok).toBe(true);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(polls).toBeGreaterThanOrEqual(100);
    expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
  });
});
