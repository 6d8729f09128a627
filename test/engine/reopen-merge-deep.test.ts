import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../src/engine/events.js';
import { engineFor, openWorkspace, runConfig } from '../../src/surfaces/wiring.js';
import { WORKERS } from '../../src/surfaces/workers.js';
import { ConfigPortModel } from '../helpers/config-port-model.js';
import { listenTo } from '../helpers/engine.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

const IDEA = 'a small service: a configuration, a README and a server that reads its port';

/**
 * A run of the idea on the scripted model, as `maker run --worker gemini --hitl auto` makes it;
 * stopped at the first event `stopWhen` accepts and resumed by a new engine, as after a kill.
 */
async function serviceRun(dir: string, stopWhen?: (event: EngineEvent) => boolean) {
  const workspace = await openWorkspace(dir, true, {});
  try {
    const config = runConfig({
      worker: 'gemini',
      hitl: 'auto',
      seed: 1,
      install: '',
      maxDepth: 2,
      defaultBranch: await workspace.currentBranch(),
    });
    const model = new ConfigPortModel();
    const roles = WORKERS.gemini.roles(config, workspace, {}, { model, editFormat: 'json' });
    const engine = engineFor(dir, workspace, roles, [], {});
    const { events, stop, done } = listenTo(engine, stopWhen);
    const runId = await engine.create(IDEA, config);
    let outcome = await engine.run(runId, { signal: stop });
    const interrupted = outcome.status;
    if (stopWhen !== undefined) outcome = await engineFor(dir, workspace, roles, [], {}).run(runId);
    await done();
    const run = await engineFor(dir, workspace, roles, [], {}).getRun(runId);
    const landed = run.nodes[run.rootId]?.commit;
    return {
      interrupted,
      outcome,
      run,
      events,
      tree: landed === undefined ? undefined : await workspace.treeOf(landed),
      config:
        landed === undefined
          ? ''
          : ((await workspace.readFiles(landed, ['config.json']))[0]?.content ?? ''),
    };
  } finally {
    await workspace.close();
  }
}

describe('a merge at the root broken by a leaf two levels down (issue #36)', () => {
  let first: Awaited<ReturnType<typeof serviceRun>> | undefined;

  it('reopens the configuration leaf under "Set up the service" and lands a numeric port', async () => {
    first = await serviceRun(await tempDir());
    const { outcome, run, events } = first;
    expect(outcome.status).toBe('done');
    expect(run.result?.landed).toBe(true);
    // The tree: root → 0 (Set up the service) → 0-0 (the configuration), 0-1; root → 1 (server).
    expect(run.nodes['0']?.kind).toBe('branch');
    expect(run.nodes['0-0']?.title).toBe('Write the configuration');
    expect(run.reopens).toHaveLength(1);
    expect(run.reopens?.[0]).toMatchObject({
      node: '0-0',
      trigger: { kind: 'merge', node: run.rootId },
    });
    expect(run.reopens?.[0]?.signature).toMatch(/TypeError: port must be a number, got string/);
    const said = events.find((e) => e.type === 'node-reopened');
    expect(said?.type === 'node-reopened' ? said.reason : '').toMatch(
      /^reopened 0-0 \(Write the configuration\) because a merge into .+ broke a check that passed below it: `TypeError: port must be a number/,
    );
    expect(JSON.parse(first.config)).toEqual({ port: 8080 });
    // The README leaf beside it kept its result; the server was not redone.
    expect(run.nodes['0-1']?.reopen).toBeUndefined();
    expect(run.nodes['1']?.reopen).toBeUndefined();
  }, 120_000);

  it('stopped right after the blame vote, resumes to the same tree', async () => {
    const stopped = await serviceRun(
      await tempDir(),
      (e) => e.type === 'vote-end' && e.vote === 'blame',
    );
    expect(stopped.interrupted).toBe('cancelled');
    expect(stopped.outcome.status).toBe('done');
    expect(stopped.run.reopens).toHaveLength(1);
    expect(first?.tree).toBeDefined();
    expect(stopped.tree).toBe(first?.tree);
  }, 120_000);
});
