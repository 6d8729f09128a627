import { execFileSync } from 'node:child_process';
import { afterEach } from 'vitest';
import { GitWorkspace } from '../../src/adapters/git/git-workspace.js';
import { JulesClient, type JulesClientOptions } from '../../src/adapters/jules/client.js';
import type { JulesTransport } from '../../src/adapters/jules/http.js';
import { nodeTransport } from '../../src/adapters/jules/node-transport.js';
import { JulesWorker, type JulesWorkerOptions } from '../../src/adapters/jules/worker.js';
import type { WorkerHooks } from '../../src/ports/worker.js';
import { startFakeJules, type FakeJules } from '../../src/offline/fake-jules.js';
import { PATCH, addATask } from './jules-worker.js';
import { useTempDirs } from './tmp.js';

export const WORLD_KEY = 'jules-exactly-once-key-0123456789';

export type WorldOptions = Partial<Parameters<typeof startFakeJules>[0]> & {
  transport?: (base: JulesTransport, fake: () => FakeJules) => JulesTransport;
  /** More options of the worker's client (its outage tolerance, …). */
  client?: Partial<JulesClientOptions>;
  /** More options of the worker. */
  worker?: Partial<JulesWorkerOptions>;
  /** How far the fake's wall clock (its `createTime`s and `Date` headers) is off the worker's. */
  serverClockOffsetMs?: number;
};

/**
 * A fake Jules and a worker on one virtual clock (`world()`): every wait (the worker's, the
 * client's) moves it on, and the fake's list lag and late creates are measured on it, so nothing
 * waits for real. The fake's wall clock is the worker's unless `now` says otherwise. Each world's
 * fake is closed after its test (closing it earlier is fine).
 */
export function useJulesWorld() {
  const tempDir = useTempDirs();
  const open: FakeJules[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((f) => f.close()));
  });
  return async function world(options: WorldOptions = {}) {
    const clock = { ms: 0, wall: Date.now() };
    const dir = await tempDir();
    const ws = await GitWorkspace.open(dir, { create: true });
    const base = (await ws.resolve('main')) as string;
    const started = await startFakeJules({
      apiKey: WORLD_KEY,
      sources: [{ owner: 'me', repo: 'app', gitDir: `${dir}/.git` }],
      agent: () => ({ patch: PATCH }),
      clock: () => clock.ms,
      now: () => clock.wall + clock.ms + (options.serverClockOffsetMs ?? 0),
      ...options,
    });
    let closed: Promise<void> | undefined;
    const fake: FakeJules = Object.assign(Object.create(started) as FakeJules, {
      close: () => (closed ??= started.close()),
    });
    open.push(fake);
    const sleep = (ms: number) => ((clock.ms += ms), Promise.resolve());
    const now = () => clock.wall + clock.ms;
    const baseTransport = nodeTransport();
    const client = new JulesClient({
      apiKey: WORLD_KEY,
      baseUrl: fake.baseUrl,
      transport: options.transport?.(baseTransport, () => fake) ?? baseTransport,
      sleep,
      now,
      random: () => 0.5,
      ...options.client,
    });
    const worker = new JulesWorker({
      client,
      source: 'sources/github/me/app',
      publisher: {
        publish: (branch, commit) => {
          execFileSync('git', ['branch', '-f', branch, commit], { cwd: dir });
          return Promise.resolve();
        },
      },
      sleep,
      now,
      ...options.worker,
    });
    const task = addATask(base);
    /** What the slot recorded in the state: the ids it counts as bought. */
    const recorded = new Set<string>();
    const hooks: WorkerHooks = {
      recordExternalId: (id) => (recorded.add(id), Promise.resolve()),
      recordExtraId: (id) => (recorded.add(id), Promise.resolve()),
    };
    return { fake, client, worker, task, hooks, recorded, clock, base, dir };
  };
}
