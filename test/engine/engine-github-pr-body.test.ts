import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inspectRepository } from '../../src/adapters/git/inspect.js';
import { pacedPlanner, pacedWorker } from '../../src/adapters/sim/paced.js';
import { SimPlanner, SimWorker } from '../../src/adapters/sim/project-sim.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import type { Run } from '../../src/core/tree/schema.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import type { RunRemote } from '../../src/ports/remote.js';
import type { RepoHost } from '../../src/ports/repo-host.js';
import { planGitHub } from '../../src/app/github/plan.js';
import { setUpGitHub } from '../../src/app/github/setup.js';
import { remotesFor } from '../../src/app/github/wiring.js';
import type { Target } from '../../src/app/start/preflight.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { startFaultProxy, type FaultProxy } from '../../src/offline/fault-proxy.js';
import { baseConfig } from '../helpers/engine.js';
import { TOKENS, useFakeGitHub } from '../helpers/github.js';
import { useTempDirs } from '../helpers/tmp.js';
import { readSettings } from '../../src/app/settings.js';
import { workspaceSettings } from '../helpers/settings.js';

/**
 * The pull request's body follows the run: a paced simulated run (slow enough to cross the
 * debounce, injected short) against the fake GitHub, its REST calls through a proxy that makes
 * every PATCH of the pull request slow, so overlapping updates would show.
 */
const tempDir = useTempDirs();
const startFake = useFakeGitHub();
const proxies: FaultProxy[] = [];
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});

/** How many pull request updates the engine has asked the host for at once, at most. */
const updates = { inFlight: 0, max: 0, calls: 0 };

/**
 * The engine's remotes, passed through, with the host's pull request updates counted as the
 * engine makes them (before octokit, whose write throttle would serialise them anyway).
 */
function counting(
  remotes: (run: Run) => RunRemote | undefined,
): (run: Run) => RunRemote | undefined {
  const made = new Map<string, RunRemote>();
  return (run) => {
    const inner = remotes(run);
    if (inner === undefined) return undefined;
    let remote = made.get(run.id);
    if (remote === undefined) {
      const host = inner.host;
      const updatePullRequest: RepoHost['updatePullRequest'] = async (...args) => {
        updates.calls += 1;
        updates.max = Math.max(updates.max, ++updates.inFlight);
        try {
          return await host.updatePullRequest(...args);
        } finally {
          updates.inFlight -= 1;
        }
      };
      remote = {
        ...inner,
        host: new Proxy(host, {
          get: (target, key) => {
            if (key === 'updatePullRequest') return updatePullRequest;
            const value: unknown = Reflect.get(target, key, target);
            // The host's methods use its private fields: called on the host, not the proxy.
            return typeof value === 'function' ? (value.bind(target) as unknown) : value;
          },
        }),
      };
      made.set(run.id, remote);
    }
    return remote;
  };
}

/** The events that ask the keeper for an update (see MakerEngine's emit). */
const POKES = new Set(['commit-end', 'merge-end', 'question-answered', 'node-split']);

describe('the pull request body during a run', () => {
  it('changes as node statuses advance, with at most one PATCH in flight, coalesced, and ends listing every node', async () => {
    const fake = await startFake();
    const proxy = await startFaultProxy({
      target: fake.baseUrl,
      rules: [{ method: 'PATCH', path: /\/pulls\/\d+$/, fault: { kind: 'delay', ms: 400 } }],
    });
    proxies.push(proxy);
    const dir = join(await tempDir(), 'body');
    const env = { GITHUB_API_URL: proxy.baseUrl, GITHUB_TOKEN: TOKENS.full };
    const { plan, problems } = await planGitHub(
      { repo: { owner: 'alice', name: 'body' } },
      (await inspectRepository(dir)) as Target,
      dir,
      readSettings(env),
    );
    expect(problems).toEqual([]);
    if (plan === undefined) throw new Error('no plan');
    const { workspace, record } = await setUpGitHub(plan, dir, () =>
      openWorkspace(dir, true, workspaceSettings()),
    );
    const sim = { seed: 7 };
    let pokes = 0;
    const engine: MakerEngine = new MakerEngine({
      workspace,
      roles: {
        planner: pacedPlanner(new SimPlanner(sim), 10),
        worker: pacedWorker(new SimWorker(sim), 40),
      },
      store: makerStateFile(dir),
      remote: counting(remotesFor(workspace, TOKENS.full, () => engine.persist())),
      pullRequestDebounceMs: 100,
      journal: (event) => void (POKES.has(event.type) && (pokes += 1)),
    });
    const runId = await engine.create(
      'a csv tool',
      { ...baseConfig, hitl: 'defer' },
      { github: record },
    );

    // What GitHub shows while the run goes: every distinct body, in order.
    const seen: string[] = [];
    let running = true;
    const watching = (async () => {
      while (running) {
        const body = (await fake.state()).repos[0]?.pulls[0]?.body;
        if (typeof body === 'string' && body !== seen.at(-1)) seen.push(body);
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
    })();
    const outcome = await engine.run(runId);
    running = false;
    await watching;
    // Asked of the host one at a time (octokit's write throttle would hide a second one on the wire).
    expect(updates.max).toBe(1);
    expect(outcome.pending.map((q) => q.id)).toEqual(['q-root-veto']);

    // The body changed during the run, and its nodes moved on (more of them done).
    expect(seen.length).toBeGreaterThanOrEqual(3);
    const done = (body: string) => body.split('\n').filter((l) => / — done\b/.test(l)).length;
    expect(done(seen.at(-1) as string)).toBeGreaterThan(done(seen[0] as string));

    // PATCHes of the pull request: at most one in flight, and fewer than the changes (coalesced).
    const patches = proxy.log.filter((r) => r.method === 'PATCH' && /\/pulls\/1$/.test(r.path));
    expect(patches.length).toBeGreaterThanOrEqual(2);
    for (const [i, p] of patches.entries()) {
      expect(p.endMs, `PATCH ${i} ended`).toBeDefined();
      const next = patches[i + 1];
      if (next !== undefined) expect(next.startMs).toBeGreaterThanOrEqual(p.endMs as number);
    }
    expect(patches.length).toBeLessThan(pokes / 2);
    expect(updates.calls).toBe(patches.length);
    // The fake answered exactly those.
    expect(
      fake.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith('/pulls/1')).length,
    ).toBe(patches.length);

    // The final body, asked before the veto, lists every node with its final status.
    const run = await engine.getRun(runId);
    const final = (await fake.state()).repos[0]?.pulls[0]?.body ?? '';
    for (const node of Object.values(run.nodes))
      expect(final).toContain(
        `\`${node.id}\` ${node.title.replace(/\s+/g, ' ').trim().slice(0, 40)}`,
      );
    expect(done(final)).toBe(Object.keys(run.nodes).length);
  }, 120_000);
});
