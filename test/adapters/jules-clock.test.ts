import { describe, expect, it } from 'vitest';
import { JulesClient } from '../../src/adapters/jules/client.js';
import { prompt } from '../../src/adapters/jules/prompt.js';
import { PATCH } from '../helpers/jules-worker.js';
import { WORLD_KEY, useJulesWorld } from '../helpers/jules-world.js';

const world = useJulesWorld();
const TEN_MINUTES = 10 * 60_000;

describe('Jules’ clock may disagree with ours', () => {
  it.each([
    ['10 minutes behind', -TEN_MINUTES],
    ['10 minutes ahead', TEN_MINUTES],
  ])(
    'with its clock %s, a lost create reply finds the session it made: one session, the one counted',
    async (_name, offset) => {
      // Failed at main (10 minutes behind): the look-up ignored the real session, its createTime
      // outside the 5-minute skew allowance, bought a second one, and never archived the first.
      const w = await world({
        lateCreate: (n) => (n === 1 ? 0 : undefined),
        serverClockOffsetMs: offset,
      });
      const out = await w.worker.run(w.task, 0, undefined, w.hooks);
      expect(out).toMatchObject({ ok: true, patch: PATCH });
      expect([...w.fake.sessions.keys()]).toEqual([out.externalId]);
      expect(new Set(w.fake.sessions.keys())).toEqual(w.recorded);
      expect(w.fake.requests.filter((r) => r.path.endsWith(':archive'))).toEqual([]);
    },
  );

  it('measures the offset from Jules’ own answers: its Date header, and the createTime of a session just made', async () => {
    const w = await world({ now: () => Date.now() - TEN_MINUTES });
    const client = new JulesClient({ apiKey: WORLD_KEY, baseUrl: w.fake.baseUrl });
    expect(client.serverClockOffsetMs).toBeUndefined();
    await client.listSources();
    // A Date header says whole seconds.
    expect(Math.abs((client.serverClockOffsetMs ?? 0) + TEN_MINUTES)).toBeLessThan(1500);
    await w.worker.prepare(w.task);
    await client.createSession({
      prompt: 'p',
      title: 't',
      source: 'sources/github/me/app',
      startingBranch: w.task.branch,
      requirePlanApproval: false,
    });
    expect(Math.abs((client.serverClockOffsetMs ?? 0) + TEN_MINUTES)).toBeLessThan(250);
  });

  it('a Retry-After date is read on Jules’ clock (10 minutes behind): waited as Jules said, not skipped', async () => {
    // Failed at main: the date, 30 s ahead on Jules' clock, was 9.5 minutes past on ours, so the
    // read was sent again at once (after a backoff of a few hundred ms).
    const serverNow = () => Date.now() - TEN_MINUTES;
    let limited = 0;
    const w = await world({
      now: serverNow,
      fault: ({ method, path }) =>
        method === 'GET' && path === '/v1alpha/sources' && limited++ === 0
          ? { status: 503, retryAfter: new Date(serverNow() + 30_000).toUTCString() }
          : undefined,
    });
    const slept: number[] = [];
    const client = new JulesClient({
      apiKey: WORLD_KEY,
      baseUrl: w.fake.baseUrl,
      sleep: (ms) => (slept.push(ms), Promise.resolve()),
      random: () => 0.5,
    });
    expect((await client.listSources()).items).toHaveLength(1);
    expect(slept).toHaveLength(1);
    // Whole seconds (an HTTP date), less the moment the answer took.
    expect(slept[0]).toBeGreaterThanOrEqual(28_000);
    expect(slept[0]).toBeLessThanOrEqual(31_000);
  });

  it('a resumed slot that finds two sessions of its own uses the newest, and records and archives the other', async () => {
    // Two creates of an earlier process both reached Jules (the first one's reply lost).
    const w = await world();
    await w.worker.prepare(w.task);
    const request = {
      prompt: prompt(w.task),
      title: 'maker r1 n-0-1 cand-0',
      source: 'sources/github/me/app',
      startingBranch: w.task.branch,
      requirePlanApproval: false,
    };
    const first = await w.client.createSession(request);
    w.clock.ms += 5000;
    const second = await w.client.createSession(request);
    const out = await w.worker.run(w.task, 0, undefined, { ...w.hooks, resumed: true });
    expect(out).toMatchObject({ ok: true, externalId: second.id });
    expect(w.recorded).toEqual(new Set([first.id, second.id]));
    expect(w.fake.requests).toContainEqual({
      method: 'POST',
      path: `/v1alpha/sessions/${first.id}:archive`,
    });
    expect(w.fake.sessions.size).toBe(2);
  });
});
