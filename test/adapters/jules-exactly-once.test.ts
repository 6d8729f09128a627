import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { JulesClient } from '../../src/adapters/jules/client.js';
import { PATCH } from '../helpers/jules-worker.js';
import { WORLD_KEY as KEY, useJulesWorld } from '../helpers/jules-world.js';

const world = useJulesWorld();

describe('a lost reply to an answer sent to a session that finished since', () => {
  it('is harmless, as for approvePlan: the finished candidate is kept, no second session', async () => {
    // Failed at main: "Jules: Jules POST /sessions/…:sendMessage failed with 400: Session is
    // already finished." flagged the candidate.
    let lost = false;
    const w = await world({
      agent: (c) =>
        c.messages.length === 0 ? { askFeedback: 'Upper or lower?' } : { patch: PATCH },
      transport: (base) => async (url, init) => {
        if (!lost && url.endsWith(':sendMessage')) {
          lost = true;
          await base(url, init);
          // The session goes on and finishes before the retried message arrives.
          await base(url.replace(':sendMessage', ''), { ...init, method: 'GET', body: undefined });
          throw new Error('socket hang up');
        }
        return base(url, init);
      },
    });
    try {
      const out = await w.worker.run(w.task, 0, undefined, {
        ...w.hooks,
        ask: () => Promise.resolve('lower'),
      });
      expect(lost).toBe(true);
      expect(out).toMatchObject({ ok: true, patch: PATCH });
      expect(w.fake.sessions.size).toBe(1);
      expect(w.fake.requests.filter((r) => r.path.endsWith(':sendMessage'))).toHaveLength(2);
    } finally {
      await w.fake.close();
    }
  });
});

describe('after a create of unknown outcome, the slot finds only its own session', () => {
  it('a session with the same title on another starting branch, or with another prompt (an hour older), is not adopted', async () => {
    // Failed at main: the slot adopted the foreign session (title only) and bought none. Told
    // apart by its prompt's digest, not by its time (issue 38: Jules' clock may be off).
    let creates = 0;
    const w = await world({
      transport: (base) => (url, init) =>
        init.method === 'POST' && url.endsWith('/sessions') && ++creates === 1
          ? Promise.resolve({ status: 503, text: '', retryAfter: null })
          : base(url, init),
    });
    try {
      const client = new JulesClient({ apiKey: KEY, baseUrl: w.fake.baseUrl });
      const request = {
        prompt: 'someone else',
        title: 'maker r1 n-0-1 cand-0',
        source: 'sources/github/me/app',
        requirePlanApproval: false,
      };
      const other = await client.createSession({ ...request, startingBranch: 'main' }, {});
      execFileSync('git', ['branch', '-f', w.task.branch, w.base], { cwd: w.dir });
      w.clock.wall -= 3_600_000;
      const old = await client.createSession({ ...request, startingBranch: w.task.branch }, {});
      w.clock.wall += 3_600_000;
      const out = await w.worker.run(w.task, 0, undefined, w.hooks);
      expect(out).toMatchObject({ ok: true, patch: PATCH });
      expect(out.externalId).not.toBe(other.id);
      expect(out.externalId).not.toBe(old.id);
      expect(w.fake.sessions.size).toBe(3);
      expect(w.fake.sessions.get(out.externalId ?? '')?.title).toBe('maker r1 n-0-1 cand-0');
    } finally {
      await w.fake.close();
    }
  });
});

describe('Jules campaign: a create of unknown outcome, its session listed late or created late', () => {
  // One trial per pair: the list lags 0–10 s; the create reaches Jules 0–90 s after it was sent (the
  // client got no answer: past its 60 s timeout for the latest). Failed at main for every pair
  // where the session is not listed 1 s after the create: a second session was bought.
  const lags = [0, 2_000, 5_000, 10_000];
  const lates = [0, 1_000, 30_000, 59_000, 61_000, 90_000];
  const trials = lags.flatMap((lag) => lates.map((late) => ({ lag, late })));

  it(`${trials.length} trials: zero duplicate sessions, and what the slot counts is what Jules billed`, async () => {
    const results: string[] = [];
    for (const { lag, late } of trials) {
      const w = await world({ listLagMs: lag, lateCreate: (n) => (n === 1 ? late : undefined) });
      try {
        const out = await w.worker.run(w.task, 0, undefined, w.hooks);
        const billed = [...w.fake.sessions.keys()];
        results.push(
          `lag ${lag} late ${late}: ${out.ok ? 'ok' : 'flagged'}, billed ${billed.length}, counted ${w.recorded.size}`,
        );
        expect(new Set(billed)).toEqual(w.recorded);
      } finally {
        await w.fake.close();
      }
    }
    expect(results).toEqual(
      trials.map(({ lag, late }) => `lag ${lag} late ${late}: ok, billed 1, counted 1`),
    );
  });

  it('a create that reaches Jules after the lookup window: the second session is used, the late one recorded and archived', async () => {
    // Failed at main: the late session was neither counted nor archived.
    const w = await world({ listLagMs: 2_000, lateCreate: (n) => (n === 1 ? 150_000 : undefined) });
    try {
      const out = await w.worker.run(w.task, 0, undefined, w.hooks);
      expect(out).toMatchObject({ ok: true, patch: PATCH });
      const billed = [...w.fake.sessions.keys()];
      expect(billed).toHaveLength(2);
      expect(new Set(billed)).toEqual(w.recorded);
      const orphan = billed.find((id) => id !== out.externalId);
      expect(w.fake.requests).toContainEqual({
        method: 'POST',
        path: `/v1alpha/sessions/${orphan}:archive`,
      });
    } finally {
      await w.fake.close();
    }
  });
});
