import { describe, expect, it } from 'vitest';
import { JulesClient } from '../../src/adapters/jules/client.js';
import type { JulesTransport } from '../../src/adapters/jules/http.js';
import { nodeTransport } from '../../src/adapters/jules/node-transport.js';
import { AbortedError } from '../../src/core/errors.js';
import { errorEnvelope } from '../../src/offline/google-http.js';
import { PATCH, useJulesWorkers, workerOn } from '../helpers/jules-worker.js';

const { setup } = useJulesWorkers();
const KEY = 'jules-worker-key-0123456789';
const SESSION_GET = /\/sessions\/\d+$/;

/** The production transport to the fake, with `change` deciding each answer (or leaving it as it is). */
function altered(
  change: (
    request: { method: string; url: string; n: number },
    forward: () => ReturnType<JulesTransport>,
  ) => ReturnType<JulesTransport> | undefined,
): JulesTransport {
  const base = nodeTransport();
  let n = 0;
  return (url, init) =>
    change({ method: init.method, url, n: ++n }, () => base(url, init)) ?? base(url, init);
}

/** A client on the fake through `transport`, recording its waits. */
function clientOn(baseUrl: string, transport: JulesTransport, slept: number[] = []) {
  return new JulesClient({
    apiKey: KEY,
    baseUrl,
    transport,
    sleep: (ms) => (slept.push(ms), Promise.resolve()),
    random: () => 0.5,
  });
}

describe('Jules transport failures never flag a candidate', () => {
  it('a create whose 2xx reply cannot be read is looked up by its title: one session, its patch', async () => {
    const { task, fake, gitDir } = await setup();
    const transport = altered(({ method, url }, forward) =>
      method === 'POST' && url.endsWith('/sessions')
        ? forward().then((answer) => ({ ...answer, text: '<html>upstream hiccup</html>' }))
        : undefined,
    );
    const worker = workerOn(fake, gitDir, { client: clientOn(fake.baseUrl, transport) });
    const out = await worker.run(task, 0);
    expect(out).toMatchObject({ ok: true, patch: PATCH });
    expect(fake.sessions.size).toBe(1);
    expect(fake.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('a look at a running session answered with something unreadable is retried, not a red flag', async () => {
    const { task, fake, gitDir } = await setup();
    let garbled = 0;
    const transport = altered(({ method, url }, forward) =>
      method === 'GET' && SESSION_GET.test(url) && garbled++ < 2
        ? forward().then((answer) => ({ ...answer, text: garbled === 1 ? 'not json' : '{}' }))
        : undefined,
    );
    const worker = workerOn(fake, gitDir, { client: clientOn(fake.baseUrl, transport) });
    const out = await worker.run(task, 0);
    expect(out).toMatchObject({ ok: true, patch: PATCH });
    expect(fake.sessions.size).toBe(1);
  });

  it('a 408 Request Timeout on a look at a running session is retried, not a red flag', async () => {
    const { task, fake, gitDir } = await setup();
    let timedOut = 0;
    const transport = altered(({ method, url }) =>
      method === 'GET' && SESSION_GET.test(url) && timedOut++ === 0
        ? Promise.resolve({ status: 408, text: '', retryAfter: null })
        : undefined,
    );
    const worker = workerOn(fake, gitDir, { client: clientOn(fake.baseUrl, transport) });
    const out = await worker.run(task, 0);
    expect(out).toMatchObject({ ok: true, patch: PATCH });
    expect(fake.sessions.size).toBe(1);
  });
});

describe('Retry-After on a 5xx', () => {
  it('is waited out on a read, and a longer one than the cap stops, saying when to resume', async () => {
    const { fake } = await setup();
    const retryAfter = ['7', '3600'];
    const slept: number[] = [];
    const transport = altered(({ n }) =>
      n <= 2
        ? Promise.resolve({ status: 503, text: '', retryAfter: retryAfter[n - 1] ?? null })
        : undefined,
    );
    const client = clientOn(fake.baseUrl, transport, slept);
    await expect(client.listSources()).rejects.toMatchObject({ kind: 'unavailable' });
    expect(slept).toEqual([7000]);
  });

  it('is waited out before a create of unknown outcome is looked up', async () => {
    const { task, fake, gitDir } = await setup();
    const slept: number[] = [];
    let creates = 0;
    const transport = altered(({ method, url }) =>
      method === 'POST' && url.endsWith('/sessions') && creates++ === 0
        ? Promise.resolve({ status: 503, text: '', retryAfter: '20' })
        : undefined,
    );
    const worker = workerOn(fake, gitDir, {
      client: clientOn(fake.baseUrl, transport),
      sleep: (ms) => (slept.push(ms), Promise.resolve()),
    });
    expect(await worker.run(task, 0)).toMatchObject({ ok: true, patch: PATCH });
    expect(slept[0]).toBeGreaterThanOrEqual(20_000);
    expect(fake.sessions.size).toBe(1);
  });
});

describe('cancelling a run', () => {
  /** A worker on the fake whose every request fails 503, its backoffs ending only at their signal. */
  async function inOutage() {
    const { task, fake, gitDir } = await setup();
    let backingOff: () => void = () => undefined;
    const inBackoff = new Promise<void>((resolve) => (backingOff = resolve));
    const client = new JulesClient({
      apiKey: KEY,
      baseUrl: fake.baseUrl,
      transport: () => Promise.resolve({ status: 503, text: '', retryAfter: null }),
      sleep: (_ms, signal) => {
        backingOff();
        return new Promise((_resolve, reject) =>
          signal?.addEventListener('abort', () => reject(new AbortedError(signal.reason)), {
            once: true,
          }),
        );
      },
    });
    return { task, inBackoff, worker: workerOn(fake, gitDir, { client }) };
  }

  it('stops a slot waiting on the source check that prepare started, during an outage', async () => {
    const { task, inBackoff, worker } = await inOutage();
    void worker.prepare(task).catch(() => undefined);
    const controller = new AbortController();
    const running = worker.run(task, 0, controller.signal).catch((e: unknown) => e);
    await inBackoff;
    controller.abort(new Error('cancelled'));
    expect(await running).toBeInstanceOf(AbortedError);
  });

  it('stops the source check prepare started at the run’s signal', async () => {
    const { task, inBackoff, worker } = await inOutage();
    const controller = new AbortController();
    const prepared = worker.prepare(task, controller.signal).catch((e: unknown) => e);
    await inBackoff;
    controller.abort(new Error('cancelled'));
    expect(await prepared).toBeInstanceOf(AbortedError);
  });
});

describe('a person’s time is not the session’s', () => {
  /** Jules is still at work at the first look after the person's answer was sent by `verb`. */
  function stillWorkingAfter(verb: string): JulesTransport {
    let answered = false;
    let looks = 0;
    return altered(({ method, url }, forward) => {
      if (method === 'POST' && url.endsWith(verb)) answered = true;
      if (!(answered && method === 'GET' && SESSION_GET.test(url) && looks++ === 0))
        return undefined;
      return forward().then((answer) => ({
        ...answer,
        text: JSON.stringify({ ...(JSON.parse(answer.text) as object), state: 'IN_PROGRESS' }),
      }));
    });
  }

  it('a session that waited longer than its time limit for an answer goes on once answered', async () => {
    let now = 0;
    const { task, fake, gitDir } = await setup((context) =>
      context.messages.length === 0 ? { askFeedback: 'Upper or lower case?' } : { patch: PATCH },
    );
    const worker = workerOn(fake, gitDir, {
      client: clientOn(fake.baseUrl, stillWorkingAfter(':sendMessage')),
      timeoutMs: 60_000,
      now: () => now,
    });
    const out = await worker.run(task, 0, undefined, {
      ask: () => ((now += 3_600_000), Promise.resolve('lower')),
    });
    expect(out).toMatchObject({ ok: true, patch: PATCH });
  });

  it('a plan reviewed for longer than the time limit goes on once approved', async () => {
    let now = 0;
    const { task, fake, gitDir } = await setup();
    const worker = workerOn(fake, gitDir, {
      client: clientOn(fake.baseUrl, stillWorkingAfter(':approvePlan')),
      planReview: true,
      timeoutMs: 60_000,
      now: () => now,
    });
    const out = await worker.run(task, 0, undefined, {
      choose: () => ((now += 3_600_000), Promise.resolve('approve')),
    });
    expect(out).toMatchObject({ ok: true, patch: PATCH });
  });
});

describe('a create Jules refuses (400) says nothing about the candidate', () => {
  const branchMissing = (branch: string) => ({
    status: 400,
    retryAfter: null,
    text: JSON.stringify(
      errorEnvelope(400, `Branch ${branch} not found in sources/github/me/app.`, [
        {
          field: 'session.source_context.github_repo_context.starting_branch',
          description: 'not found',
        },
      ]),
    ),
  });

  it('a starting branch Jules does not see yet (just pushed) is asked about again: one session, its patch', async () => {
    const { task, fake, gitDir } = await setup();
    let refusals = 0;
    const transport = altered(({ method, url }) =>
      method === 'POST' && url.endsWith('/sessions') && refusals++ < 2
        ? Promise.resolve(branchMissing(task.branch))
        : undefined,
    );
    const waits: string[] = [];
    const worker = workerOn(fake, gitDir, { client: clientOn(fake.baseUrl, transport) });
    const out = await worker.run(task, 0, undefined, {
      wait: (w) => (waits.push(w.reason), () => undefined),
    });
    expect(out).toMatchObject({ ok: true, patch: PATCH });
    expect(fake.sessions.size).toBe(1);
    expect(waits.filter((w) => w.includes(`does not see branch ${task.branch}`))).toHaveLength(2);
  });

  it('a branch it never sees, and any other refusal, stop the run (no red flag, no second session bought)', async () => {
    const { task, fake, gitDir } = await setup();
    let clock = 0;
    const never = altered(({ method, url }) =>
      method === 'POST' && url.endsWith('/sessions')
        ? Promise.resolve(branchMissing(task.branch))
        : undefined,
    );
    const stuck = workerOn(fake, gitDir, {
      client: clientOn(fake.baseUrl, never),
      now: () => clock,
      sleep: (ms) => ((clock += ms), Promise.resolve()),
    });
    const error = await stuck.run(task, 0).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'refused' });
    expect((error as Error).message).toMatch(
      /Jules GitHub app can see the repository.*maker resume/s,
    );
    expect(clock).toBeGreaterThanOrEqual(120_000);

    let posts = 0;
    const invalid = altered(({ method, url }) =>
      method === 'POST' && url.endsWith('/sessions') && ++posts > 0
        ? Promise.resolve({
            status: 400,
            retryAfter: null,
            text: JSON.stringify(
              errorEnvelope(400, 'Invalid value at session.automation_mode', [
                { field: 'session.automation_mode', description: 'Invalid value' },
              ]),
            ),
          })
        : undefined,
    );
    const bad = workerOn(fake, gitDir, { client: clientOn(fake.baseUrl, invalid) });
    const refused = await bad.run(task, 1).catch((e: unknown) => e);
    expect(refused).toMatchObject({ kind: 'refused' });
    expect((refused as Error).message).toMatch(
      /session\.automation_mode.*says nothing about the candidates/s,
    );
    expect(posts).toBe(1);
    expect(fake.sessions.size).toBe(0);
  });
});
