import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../src/engine/events.js';
import { engineFor, openWorkspace, runConfig } from '../../src/surfaces/wiring.js';
import { WORKERS } from '../../src/surfaces/workers.js';
import { listenTo } from '../helpers/engine.js';
import { MODULE, ModuleConflictModel } from '../helpers/module-conflict-model.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

const IDEA = 'a text module: src/index.mjs exports greet and shout';

/**
 * A run of the idea on the scripted model, as `maker run --worker gemini --hitl auto` makes it;
 * stopped at the first event `stopWhen` accepts and resumed by a new engine, as after a kill.
 */
async function textRun(dir: string, stopWhen?: (event: EngineEvent) => boolean) {
  const workspace = await openWorkspace(dir, true, {});
  try {
    const config = runConfig({
      worker: 'gemini',
      hitl: 'auto',
      seed: 1,
      install: '',
      defaultBranch: await workspace.currentBranch(),
    });
    const model = new ModuleConflictModel();
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
      model,
      tree: landed === undefined ? undefined : await workspace.treeOf(landed),
      module:
        landed === undefined
          ? ''
          : ((await workspace.readFiles(landed, [MODULE]))[0]?.content ?? ''),
    };
  } finally {
    await workspace.close();
  }
}

describe("an integration that fails because of a merged subtask's result (issue #36)", () => {
  let first: Awaited<ReturnType<typeof textRun>> | undefined;

  it('reopens the subtask that wrote CommonJS and lands the ES module', async () => {
    first = await textRun(await tempDir());
    const { outcome, run, events, model } = first;
    expect(outcome.status).toBe('done');
    expect(run.result?.landed).toBe(true);
    // Every reconciliation kept the CommonJS exports and failed greet's check.
    expect(model.integrations).toBeGreaterThan(0);
    expect(run.reopens).toHaveLength(1);
    expect(run.reopens?.[0]).toMatchObject({
      node: '1',
      trigger: { kind: 'integration', node: run.rootId },
    });
    expect(run.reopens?.[0]?.signature).toMatch(/require is not defined in ES module scope/);
    const said = events.find((e) => e.type === 'node-reopened');
    expect(said?.type === 'node-reopened' ? said.reason : '').toMatch(
      /^reopened 1 \(Add shout\) because all \d+ candidates reconciling a merge in .+ failed the checks that passed below it: `ReferenceError: require is not defined/,
    );
    expect(first.module).toContain('export function greet');
    expect(first.module).toContain('export function shout');
    expect(first.module).not.toContain('require(');
    // Nobody was asked what to do with the failed integration.
    expect(run.questions.filter((q) => q.nodeId === run.rootId && q.kind === 'select')).toEqual([]);
  }, 120_000);

  it('stopped right after the blame vote, resumes to the same tree', async () => {
    const stopped = await textRun(
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
