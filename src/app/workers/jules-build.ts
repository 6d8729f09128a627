import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_OUTAGE_MS, JulesClient } from '../../adapters/jules/client.js';
import { JulesWorker } from '../../adapters/jules/worker.js';
import { nodeTransport } from '../../adapters/jules/node-transport.js';
import type { GitWorkspace } from '../../adapters/git/git-workspace.js';
import { ConfigError } from '../../core/errors.js';
import type { RunConfig } from '../../core/tree/schema.js';
import type { RefPublisher } from '../../ports/ref-publisher.js';
import type { Worker } from '../../ports/worker.js';
import { startFakeJules, type FakeJules } from '../../offline/fake-jules.js';
import { simJulesAgent } from '../../offline/sim-jules-agent.js';
import { originPublisher } from '../wiring/origin-publisher.js';
import {
  JULES_PLANS,
  julesLimits,
  julesSessionUrl,
  julesSourceOf,
  outageSettingProblem,
} from './jules-settings.js';

/**
 * What builds the Jules kinds' workers (the client, the worker, the local fake), loaded only when a
 * run builds its roles: `jules.ts` and `jules-fake.ts` import it then.
 */

/** The settings a Jules worker takes from a run's configuration. */
function limitsOf(config: RunConfig) {
  const jules = julesLimits(config.workerOptions ?? { ...JULES_PLANS.free, planReview: false });
  return {
    concurrency: jules.concurrency,
    dailySessions: jules.dailySessions,
    planReview: jules.planReview,
  };
}

/**
 * How long (ms) Jules may fail every call before the run stops: the run's setting
 * (`--jules-outage-seconds`), else `MAKER_JULES_OUTAGE_S`, else 10 minutes.
 */
export function outageMs(config: RunConfig, envSeconds: string): number {
  const chosen =
    config.workerOptions === undefined
      ? undefined
      : julesLimits(config.workerOptions).outageSeconds;
  if (chosen !== undefined) return chosen * 1000;
  if (envSeconds === '') return DEFAULT_OUTAGE_MS;
  const problem = outageSettingProblem(envSeconds)[0];
  if (problem !== undefined) throw new ConfigError(problem);
  return Number(envSeconds) * 1000;
}

/** The Jules worker against the real API (`JULES_API_KEY`), on the workspace's GitHub origin. */
export function julesWorker(
  config: RunConfig,
  workspace: GitWorkspace,
  settings: {
    apiKey: string;
    baseUrl?: string;
    source?: string;
    pollMs?: { initial: number; max: number };
    outageMs?: number;
  },
  integrations: Worker,
  publisher: Pick<RefPublisher, 'publish'>,
): JulesWorker {
  return new JulesWorker({
    client: new JulesClient({
      apiKey: settings.apiKey,
      ...(settings.baseUrl === undefined ? {} : { baseUrl: settings.baseUrl }),
      ...(settings.outageMs === undefined ? {} : { outageMs: settings.outageMs }),
    }),
    source: async () => settings.source ?? julesSourceOf(await workspace.remoteUrl('origin')),
    publisher,
    ...limitsOf(config),
    integrations,
    sessionUrl: julesSessionUrl,
    ...(settings.pollMs === undefined ? {} : { pollMs: settings.pollMs }),
  });
}

/**
 * `--worker jules-fake`: the real Jules worker and client against the local fake Jules server (on
 * 127.0.0.1, started on first use) with a simulated agent. The fake reads `sourceGitDir` (the fake
 * GitHub's bare repository), else the repository behind the workspace's origin when that is a local
 * repository, else the workspace's own repository. With a publisher, branches are pushed through it
 * (as to GitHub); without, created locally. Nothing leaves the machine.
 */
export function fakeJulesWorker(
  config: RunConfig,
  workspace: GitWorkspace,
  integrations: Worker,
  options: {
    outageMs?: number;
    /** The run's publisher, when it has a remote (the fake GitHub, or a local origin). */
    publisher?: Pick<RefPublisher, 'publish'> | undefined;
    /** The bare repository the fake Jules reads (the fake GitHub's), instead of origin's or the workspace's. */
    sourceGitDir?: string | undefined;
  } = {},
): { worker: JulesWorker; close: () => Promise<void> } {
  const apiKey = `fake-${randomBytes(12).toString('hex')}`;
  const placeholder = 'http://jules.fake.invalid/v1alpha';
  let host: Promise<{ fake: FakeJules; origin: boolean }> | undefined;
  let local: Pick<RefPublisher, 'publish'> | undefined;
  const start = () =>
    (host ??= (async () => {
      const originDir =
        options.sourceGitDir ?? localRepository(await workspace.remoteUrl('origin'), workspace.dir);
      const gitDir = originDir ?? (await workspace.gitDir());
      const fake = await startFakeJules({
        apiKey,
        sources: [{ owner: 'local', repo: sourceRepo(workspace.dir), gitDir }],
        // Its sessions outlive this process, as Jules' do: a resumed run re-attaches them.
        store: join(await workspace.gitDir(), 'maker-fake-jules.json'),
        agent: simJulesAgent({
          seed: config.seed,
          gitDir,
          ...(config.sim?.failRate === undefined ? {} : { failRate: config.sim.failRate }),
          ...(config.sim?.errorRate === undefined ? {} : { errorRate: config.sim.errorRate }),
          askRate: config.sim?.clarify === true ? 0.05 : 0,
        }),
      });
      return { fake, origin: originDir !== undefined };
    })());
  const transport = nodeTransport();
  const worker = new JulesWorker({
    client: new JulesClient({
      apiKey,
      baseUrl: placeholder,
      ...(options.outageMs === undefined ? {} : { outageMs: options.outageMs }),
      // The production transport, its requests sent to the fake once it runs.
      transport: async (url, init) =>
        transport(url.replace(placeholder, (await start()).fake.baseUrl), init),
    }),
    source: () => Promise.resolve(`sources/github/local/${sourceRepo(workspace.dir)}`),
    publisher: {
      publish: async (branch, commit) => {
        if (options.publisher !== undefined) {
          await options.publisher.publish(branch, commit);
          // A fake GitHub in another process: the fake Jules reads this repository instead.
          if (options.sourceGitDir !== undefined) return;
        } else if ((await start()).origin)
          return (local ??= originPublisher(workspace)).publish(branch, commit);
        // No remote: the fake reads this repository, where the branch is created (never forced).
        if ((await workspace.resolve(branch)) === undefined)
          await workspace.setBranch(branch, commit, null).catch(async (error: unknown) => {
            // Created meanwhile (by the engine, at the same base): that is what was wanted.
            if ((await workspace.resolve(branch)) === undefined) throw error;
          });
      },
    },
    ...limitsOf(config),
    integrations,
    pollMs: { initial: 1, max: 20 },
  });
  return {
    worker,
    close: async () => {
      if (host !== undefined) await (await host).fake.close();
    },
  };
}

/** A remote URL that is a repository on this machine (a path or file: URL), as an absolute path. */
function localRepository(url: string | undefined, dir: string): string | undefined {
  if (url === undefined) return undefined;
  const path = url.startsWith('file://')
    ? fileURLToPath(url)
    : /^[a-z][a-z0-9+.-]*:\/\/|^[^/]+@[^:]+:/i.test(url)
      ? undefined
      : isAbsolute(url)
        ? url
        : resolve(dir, url);
  return path !== undefined && existsSync(path) ? path : undefined;
}

function sourceRepo(dir: string): string {
  return basename(dir).replace(/[^A-Za-z0-9._-]/g, '-') || 'repo';
}
