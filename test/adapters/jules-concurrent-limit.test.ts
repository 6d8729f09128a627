import { describe, expect, it } from 'vitest';
import { AbortedError } from '../../src/core/errors.js';
import { JulesClient } from '../../src/adapters/jules/client.js';
import type { WorkerHooks, WorkerOutput } from '../../src/ports/worker.js';
import { startFakeJules, type FakeJules } from '../../src/offline/fake-jules.js';
import { PATCH, useJulesWorkers, workerOn } from '../helpers/jules-worker.js';
import { virtualTime } from '../helpers/virtual-time.js';

const { held, setup } = useJulesWorkers();
const apiKey = 'jules-worker-key-0123456789';
const MINUTE = 60_000;

/** Real milliseconds pass (the virtual clock's sleepers get their turn). */
const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 2));

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await tick();
}

/**
 * A fake Jules whose plan runs `limit` sessions at once, each working 30 virtual minutes, and a
 * worker on it; everything on one virtual clock.
 */
async function limited(limit: number, script: Parameters<typeof startFakeJules>[0]['agent']) {
  const { task, gitDir } = await setup();
  await held.fake?.close();
  const time = virtualTime();
  const fake: FakeJules = (held.fake = await startFakeJules({
    apiKey,
    sources: [{ owner: 'me', repo: 'app', gitDir }],
    agent: script,
    workMs: 30 * MINUTE,
    clock: time.now,
    concurrentLimit: limit,
  }));
  const worker = workerOn(fake, gitDir, {
    client: new JulesClient({ apiKey, baseUrl: fake.baseUrl, sleep: time.sleep, now: time.now }),
    sleep: time.sleep,
    now: time.now,
  });
  const waits: string[] = [];
  const wait: WorkerHooks['wait'] = (w) => (waits.push(w.reason), () => undefined);
  return { task, time, fake, worker, waits, wait };
}

describe("Jules' concurrent task limit held by this run's own sessions", () => {
  it('counts a session as its own from its create, while its id is still being recorded', async () => {
    const { task, time, fake, worker, waits, wait } = await limited(2, () => ({ patch: PATCH }));
    const start = time.now();
    const third: { done: boolean } = { done: false };
    // The first two sessions' ids take long to record (a state save on a loaded machine): the
    // third slot's looks at the limit run the virtual clock on meanwhile.
    const slowSave = async () => {
      while (time.now() - start < 11 * MINUTE && !third.done) await tick();
    };
    const first = worker.run(task, 0, undefined, { recordExternalId: slowSave });
    await until(() => fake.sessions.size === 1);
    const second = worker.run(task, 1, undefined, { recordExternalId: slowSave });
    await until(() => fake.sessions.size === 2);
    const last = worker.run(task, 2, undefined, { wait }).finally(() => void (third.done = true));
    const outs: WorkerOutput[] = await Promise.all([first, second, last]);
    expect(outs.map((o) => o.ok)).toEqual([true, true, true]);
    expect(fake.sessions.size).toBe(3);
    expect(waits).toContainEqual(
      expect.stringMatching(/waiting for one of this run's 2 running sessions to finish/),
    );
    expect(waits.join('\n')).not.toMatch(/elsewhere/);
  });

  it('counts a session it stopped following as its own while Jules still runs it, and looks at it again', async () => {
    const { task, time, fake, worker, waits, wait } = await limited(1, () => ({ patch: PATCH }));
    const start = time.now();
    const stop = new AbortController();
    const first = worker.run(task, 0, stop.signal).catch((e: unknown) => e);
    const [id] = await (async () => {
      await until(() => fake.sessions.size === 1);
      return [...fake.sessions.keys()];
    })();
    await until(() => fake.requests.some((r) => r.method === 'GET' && r.path.endsWith(`/${id}`)));
    stop.abort(new AbortedError('the run was cancelled'));
    expect(await first).toBeInstanceOf(AbortedError);
    const out = await worker.run(task, 1, undefined, { wait });
    expect(out.ok).toBe(true);
    expect(fake.sessions.size).toBe(2);
    // The second started once the first was seen finished (30 minutes of work), not before.
    expect(fake.sessions.get(id ?? '')?.state).toBe('COMPLETED');
    expect(time.now()).toBeGreaterThan(60 * MINUTE + start);
    expect(waits).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `this run's earlier session ${id} still runs at Jules, though the run no longer follows it`,
        ),
      ),
    );
    expect(waits.join('\n')).not.toMatch(/elsewhere/);
  });

  it('counts a session it left waiting for an answer for a bounded time, then stops the run, naming it', async () => {
    const { task, time, fake, worker, waits, wait } = await limited(1, (context) =>
      context.title.endsWith('cand-0') ? { askFeedback: 'Which colour?' } : { patch: PATCH },
    );
    const asked = await worker.run(task, 0);
    expect(!asked.ok && asked.reason).toMatch(/stopped to ask/);
    const [id] = [...fake.sessions.keys()];
    const leftAt = time.now();
    const error = await worker.run(task, 1, undefined, { wait }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^Jules' concurrent task limit has been reached for 10 min while none of this run's sessions is running: this run's earlier session ${id}, which it stopped following and Jules still runs, or sessions started elsewhere hold it`,
      ),
    );
    // Counted as the run's for as long as a session is given (45 min), then the outage tolerance.
    expect(time.now() - leftAt).toBeGreaterThanOrEqual(55 * MINUTE);
    expect(waits[0]).toMatch(/this run's earlier session \d+ still runs at Jules/);
    expect(waits.at(-1)).toMatch(
      /reached by this run's earlier session \d+, which it stopped following and Jules still runs, or by sessions started elsewhere/,
    );
    expect(fake.sessions.size).toBe(1);
  });
});
