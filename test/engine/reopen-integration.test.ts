import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../src/engine/events.js';
import { MODULE, ModuleConflictModel } from '../helpers/module-conflict-model.js';
import { modelRun } from '../helpers/model-run.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

const IDEA = 'a text module: src/index.mjs exports greet and shout';

/** A run of the idea on the scripted model; stopped at `stopWhen` and resumed, as after a kill. */
async function textRun(dir: string, stopWhen?: (event: EngineEvent) => boolean) {
  const model = new ModuleConflictModel();
  const run = await modelRun(dir, { idea: IDEA, model, read: [MODULE], stopWhen });
  return { ...run, model, module: run.files[MODULE] ?? '' };
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
