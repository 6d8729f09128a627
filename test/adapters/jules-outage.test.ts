import { describe, expect, it } from 'vitest';
import { useJulesWorld } from '../helpers/jules-world.js';

const world = useJulesWorld();

/** Every create answered 503 (with `retryAfter`, when given): Jules creates nothing. */
const createsFail = (retryAfter?: string) => (request: { method: string; path: string }) =>
  request.method === 'POST' && request.path === '/v1alpha/sessions'
    ? { status: 503, ...(retryAfter === undefined ? {} : { retryAfter }) }
    : undefined;

describe('an outage of creates stops at --jules-outage-seconds, look-ups included', () => {
  it.each([
    ['each create answered 503', undefined],
    ['each create answered 503 with a Retry-After longer than the limit', '45'],
  ])(
    '%s: the run stops at the 20 s limit, saying how long it really was',
    async (_name, retryAfter) => {
      // Failed at main: every failed create was followed by 120 s of look-ups (the request timeout
      // plus a minute) before the limit was checked: the slot stopped after 120 s (or more), while
      // its message said "20 s".
      const w = await world({
        fault: createsFail(retryAfter),
        client: { outageMs: 20_000 },
      });
      const error = await w.worker.run(w.task, 0, undefined, w.hooks).catch((e: unknown) => e);
      expect(error).toMatchObject({ kind: 'unavailable' });
      expect(w.clock.ms).toBeGreaterThanOrEqual(20_000);
      expect(w.clock.ms).toBeLessThanOrEqual(21_000);
      expect((error as Error).message).toMatch(
        /^Jules has not created a session for 20 s, since \S+ \(the outage limit is 20 s; last error: .*503.*\)\. The state is saved; run maker resume when Jules is back/,
      );
      // Nothing was bought, and the look-ups went on until the limit.
      expect(w.fake.sessions.size).toBe(0);
      expect(w.recorded.size).toBe(0);
      const lists = w.fake.requests.filter(
        (r) => r.method === 'GET' && r.path === '/v1alpha/sessions',
      );
      expect(lists.length).toBeGreaterThanOrEqual(1);
    },
  );

  it('a create that lands late, after the run stopped, is found by the resume (no second session)', async () => {
    // The first create reaches Jules 30 s late (its reply lost); the limit is 10 s.
    const w = await world({
      lateCreate: (n) => (n === 1 ? 30_000 : undefined),
      client: { outageMs: 10_000 },
    });
    const stopped = await w.worker.run(w.task, 0, undefined, w.hooks).catch((e: unknown) => e);
    expect(stopped).toMatchObject({ kind: 'unavailable' });
    expect(w.clock.ms).toBeLessThanOrEqual(11_000);
    w.clock.ms += 60_000;
    const resumed = await w.worker.run(w.task, 0, undefined, { ...w.hooks, resumed: true });
    expect(resumed).toMatchObject({ ok: true });
    expect(w.fake.sessions.size).toBe(1);
    expect(new Set(w.fake.sessions.keys())).toEqual(w.recorded);
  });
});
