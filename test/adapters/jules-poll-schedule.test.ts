import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { GitWorkspace } from '../../src/adapters/git/git-workspace.js';
import { JulesClient } from '../../src/adapters/jules/client.js';
import type { JulesTransport } from '../../src/adapters/jules/http.js';
import { nodeTransport } from '../../src/adapters/jules/node-transport.js';
import { PollSchedule } from '../../src/adapters/jules/poll-schedule.js';
import { JulesWorker } from '../../src/adapters/jules/worker.js';
import type { WorkerTask } from '../../src/ports/worker.js';
import { startFakeJules, type FakeJules } from '../../src/offline/fake-jules.js';
import { useTempDirs } from '../helpers/tmp.js';
import { virtualTime } from '../helpers/virtual-time.js';

const tempDir = useTempDirs();
let fake: FakeJules | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const first = (waits: Iterator<number>, n: number) =>
  Array.from({ length: n }, () => waits.next().value as number);

describe('PollSchedule', () => {
  it.each<[string, number[], number[]]>([
    ['nothing seen finished yet: initial, then ×factor up to max', [], [100, 150, 225, 338, 400]],
    [
      'a session seen finished at 475: first look then, and on from (factor − 1) × 475',
      [475],
      [475, 238, 357, 400, 400],
    ],
    ['the shortest time seen wins', [900, 475, 600], [475, 238, 357, 400, 400]],
    ['a time shorter than the first wait changes nothing', [60], [100, 150, 225, 338, 400]],
    ['a long one: the next wait is capped at max', [2000], [2000, 400, 400, 400, 400]],
  ])('%s', (_what, finished, waits) => {
    const schedule = new PollSchedule({ initial: 100, factor: 1.5, max: 400 });
    for (const ms of finished) schedule.finished(ms);
    expect(first(schedule.waits(), 5)).toEqual(waits);
  });

  it('keeps the waits of a session already following when a later one is learned', () => {
    const schedule = new PollSchedule({ initial: 100, factor: 1.5, max: 400 });
    const early = schedule.waits();
    expect(early.next().value).toBe(100);
    schedule.finished(475);
    expect(first(early, 2)).toEqual([150, 225]);
    expect(schedule.waits().next().value).toBe(475);
  });
});

/** A worker on the fake Jules (its sessions take `workMs` of `clock`), and a task for it. */
async function julesOn(options: {
  workMs: number;
  clock: () => number;
  worker: Omit<ConstructorParameters<typeof JulesWorker>[0], 'client' | 'source' | 'publisher'>;
  transport?: JulesTransport;
}) {
  const dir = await tempDir();
  const ws = await GitWorkspace.open(dir, { create: true });
  const base = (await ws.resolve('main')) as string;
  const apiKey = 'jules-poll-key-0123456789';
  fake = await startFakeJules({
    apiKey,
    sources: [{ owner: 'me', repo: 'app', gitDir: `${dir}/.git` }],
    agent: () => ({
      patch:
        'diff --git a/a b/a\nnew file mode 100644\n--- /dev/null\n+++ b/a\n@@ -0,0 +1 @@\n+a\n',
    }),
    workMs: options.workMs,
    clock: options.clock,
  });
  const server = fake;
  const worker = new JulesWorker({
    client: new JulesClient({
      apiKey,
      baseUrl: server.baseUrl,
      ...(options.transport === undefined ? {} : { transport: options.transport }),
    }),
    source: 'sources/github/me/app',
    publisher: {
      publish: (branch, commit) => {
        execFileSync('git', ['branch', '-f', branch, commit], { cwd: dir });
        return Promise.resolve();
      },
    },
    ...options.worker,
  });
  const task: WorkerTask = {
    context: {
      runId: 'r1',
      nodeId: '0',
      idea: 'idea',
      depth: 1,
      maxDepth: 1,
      task: { title: 'A', description: 'Add a', acceptance: [], files: ['a'], dependsOn: [] },
      ancestors: ['idea'],
      clarifications: [],
    },
    baseCommit: base,
    branch: 'maker/r1/n-0',
  };
  const looks = () => server.requests.filter((r) => /sessions\/\d+$/.test(r.path)).length;
  return { worker, task, looks };
}

describe('JulesWorker polling', () => {
  it('looks at a session created after one was seen finished first at that time: one request instead of three', async () => {
    const time = virtualTime();
    const slept: number[] = [];
    const { worker, task, looks } = await julesOn({
      workMs: 300,
      clock: time.now,
      worker: {
        pollMs: { initial: 100, factor: 1.5, max: 1000 },
        sleep: (ms, signal) => (slept.push(ms), time.sleep(ms, signal)),
        now: time.now,
      },
    });
    expect((await worker.run(task, 0)).ok).toBe(true);
    // 300 ms of work: looks after 100, 250 (running) and 475 ms (finished).
    expect(slept).toEqual([100, 150, 225]);
    expect(looks()).toBe(3);
    expect((await worker.run(task, 1)).ok).toBe(true);
    // The time that look was sent, plus the clock's 1 ms resolution.
    expect(slept.slice(3)).toEqual([476]);
    expect(looks()).toBe(4);
  });

  it('learns nothing from a session that waited for its plan to be approved (a person’s time is not the work’s)', async () => {
    const time = virtualTime();
    const slept: number[] = [];
    const { worker, task } = await julesOn({
      workMs: 300,
      clock: time.now,
      worker: {
        pollMs: { initial: 100, factor: 1.5, max: 1000 },
        planReview: true,
        sleep: (ms, signal) => (slept.push(ms), time.sleep(ms, signal)),
        now: time.now,
      },
    });
    expect((await worker.run(task, 0)).ok).toBe(true);
    const firstSession = slept.length;
    expect(firstSession).toBeGreaterThan(1);
    expect((await worker.run(task, 1)).ok).toBe(true);
    expect(slept[firstSession]).toBe(100);
  });

  it('times each look from the previous one’s sending: a slow answer does not push the next looks back', async () => {
    // Each look's answer arrives 30 ms after it was sent.
    let now = 0;
    const sent: number[] = [];
    const slept: number[] = [];
    const transport = nodeTransport();
    const { worker, task } = await julesOn({
      workMs: 300,
      clock: () => now,
      transport: async (url, init) => {
        const look = init.method === 'GET' && /sessions\/\d+$/.test(url);
        if (look) sent.push(now);
        const answer = await transport(url, init);
        if (look) now += 30;
        return answer;
      },
      worker: {
        pollMs: { initial: 100, factor: 1.5, max: 1000 },
        sleep: (ms) => (slept.push(ms), (now += ms), Promise.resolve()),
        now: () => now,
      },
    });
    expect((await worker.run(task, 0)).ok).toBe(true);
    // 100, 150 and 225 ms apart, as the schedule says (not 100, 280 and 535 ms after the create).
    expect(sent).toEqual([100, 250, 475]);
    expect(slept).toEqual([100, 120, 195]);
  });

  it('judges the time limit at the look, not at its late answer', async () => {
    // A clock moved by hand: each sleep moves it on, and each look's answer arrives 10 minutes
    // after the look was sent (Jules saw the session when the look arrived).
    let now = 0;
    const transport = nodeTransport();
    const { worker, task, looks } = await julesOn({
      workMs: 100_000,
      clock: () => now,
      transport: async (url, init) => {
        const answer = await transport(url, init);
        if (init.method === 'GET' && /sessions\/\d+$/.test(url)) now += 600_000;
        return answer;
      },
      worker: {
        pollMs: { initial: 30_000, factor: 1, max: 30_000 },
        timeoutMs: 60_000,
        sleep: (ms) => ((now += ms), Promise.resolve()),
        now: () => now,
      },
    });
    // Seen working by the look at 30 s (answered at 630 s, past the 60 s limit), finished at the
    // next look.
    expect(await worker.run(task, 0)).toMatchObject({ ok: true });
    expect(looks()).toBe(2);
  });
});
