import { describe, expect, it } from 'vitest';
import { MAX_REPLIES_PER_SESSION } from '../../src/adapters/jules/outputs.js';
import { PATCH } from '../helpers/jules-worker.js';
import { useJulesWorld } from '../helpers/jules-world.js';

const world = useJulesWorld();

const posts = (requests: readonly { method: string; path: string }[], verb: string) =>
  requests.filter((r) => r.method === 'POST' && r.path.endsWith(`:${verb}`)).length;

describe('a session stuck waiting on someone is bounded', () => {
  it(`one that asks again after every answer: ${MAX_REPLIES_PER_SESSION} answers, then red-flagged as stuck and archived`, async () => {
    // Failed at main: answered again after every question until the 45-minute session limit (the
    // fake's agent asked 297 times in 300 s), and nothing was flagged as stuck.
    const w = await world({
      agent: () => ({ askFeedback: 'Tabs or spaces?', keepsAsking: true }),
    });
    let asked = 0;
    const out = await w.worker.run(w.task, 0, undefined, {
      ...w.hooks,
      ask: () => (asked++, Promise.resolve('spaces')),
    });
    const [id] = [...w.fake.sessions.keys()];
    expect(out).toEqual({
      ok: false,
      rule: 'session-stuck',
      reason: `Jules session ${id} asked again after ${MAX_REPLIES_PER_SESSION} answers (at most ${MAX_REPLIES_PER_SESSION} per session): it is stuck, so it was archived and the candidate discarded.`,
      externalId: id,
    });
    expect(asked).toBe(MAX_REPLIES_PER_SESSION);
    expect(posts(w.fake.requests, 'sendMessage')).toBe(MAX_REPLIES_PER_SESSION);
    expect(posts(w.fake.requests, 'archive')).toBe(1);
    expect(w.fake.sessions.size).toBe(1);
  });

  it(`one that never leaves plan approval: ${MAX_REPLIES_PER_SESSION} approvals, then red-flagged as stuck and archived`, async () => {
    // Failed at main: :approvePlan was sent after every look until the session limit (298 times in
    // 300 s), and nothing was flagged.
    const w = await world({ agent: () => ({ keepsPlanning: true }) });
    const out = await w.worker.run(w.task, 0, undefined, w.hooks);
    const [id] = [...w.fake.sessions.keys()];
    expect(out).toMatchObject({
      ok: false,
      rule: 'session-stuck',
      reason: expect.stringContaining(
        `awaited plan approval again after ${MAX_REPLIES_PER_SESSION} plan approvals (at most ${MAX_REPLIES_PER_SESSION} per session)`,
      ) as string,
      externalId: id,
    });
    expect(posts(w.fake.requests, 'approvePlan')).toBe(MAX_REPLIES_PER_SESSION);
    expect(posts(w.fake.requests, 'archive')).toBe(1);
  });

  it('a plan a person reviews counts too: the sixth review is never asked', async () => {
    const w = await world({
      agent: () => ({ keepsPlanning: true }),
      worker: { planReview: true },
    });
    let reviews = 0;
    const out = await w.worker.run(w.task, 0, undefined, {
      ...w.hooks,
      choose: () => (reviews++, Promise.resolve('approve')),
    });
    expect(out).toMatchObject({ ok: false, rule: 'session-stuck' });
    expect(reviews).toBe(MAX_REPLIES_PER_SESSION);
  });

  it('answers sent before a resume count (Jules lists them): the resumed slot sends only the rest', async () => {
    const w = await world({
      agent: () => ({ askFeedback: 'Tabs or spaces?', keepsAsking: true }),
    });
    let asked = 0;
    // The person is asked in turn; the third question is deferred (the run stops, to resume later).
    const deferred = await w.worker
      .run(w.task, 0, undefined, {
        ...w.hooks,
        ask: () =>
          ++asked > 2 ? Promise.reject(new Error('deferred')) : Promise.resolve('spaces'),
      })
      .catch((e: unknown) => e);
    expect(deferred).toMatchObject({ message: 'deferred' });
    const [id] = [...w.recorded];
    const out = await w.worker.run(w.task, 0, undefined, {
      ...w.hooks,
      externalId: id,
      ask: () => (asked++, Promise.resolve('spaces')),
    });
    expect(out).toMatchObject({ ok: false, rule: 'session-stuck' });
    expect(posts(w.fake.requests, 'sendMessage')).toBe(MAX_REPLIES_PER_SESSION);
  });

  it('a session that asks a handful of times and then finishes is a candidate as usual', async () => {
    const w = await world({
      agent: (c) =>
        c.messages.length < MAX_REPLIES_PER_SESSION
          ? { askFeedback: `Question ${c.messages.length + 1}?`, keepsAsking: true }
          : { patch: PATCH },
    });
    const out = await w.worker.run(w.task, 0, undefined, {
      ...w.hooks,
      ask: () => Promise.resolve('yes'),
    });
    expect(out).toMatchObject({ ok: true });
    expect(posts(w.fake.requests, 'archive')).toBe(0);
  });
});
