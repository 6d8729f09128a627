import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../src/engine/events.js';
import { ConfigPortModel } from '../helpers/config-port-model.js';
import { modelRun } from '../helpers/model-run.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

const IDEA = 'a small service: a configuration, a README and a server that reads its port';

/** A run of the idea on the scripted model (three levels); stopped at `stopWhen` and resumed, as after a kill. */
async function serviceRun(dir: string, stopWhen?: (event: EngineEvent) => boolean) {
  const model = new ConfigPortModel();
  const run = await modelRun(dir, {
    idea: IDEA,
    model,
    read: ['config.json'],
    maxDepth: 2,
    stopWhen,
  });
  return { ...run, config: run.files['config.json'] ?? '' };
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
