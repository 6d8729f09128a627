import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../src/engine/events.js';
import { caseKit } from '../../src/offline/product/ideas/case-kit.js';
import { RealisticModel } from '../../src/offline/product/realistic-model.js';
import type { ProductIdea } from '../../src/offline/product/types.js';
import { engineFor, openWorkspace, runConfig } from '../../src/app/wiring/wiring.js';
import { listenTo } from '../helpers/engine.js';
import { WORKERS } from '../../src/app/workers/index.js';
import { useTempDirs } from '../helpers/tmp.js';
import { readSettings } from '../../src/app/settings.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();

/**
 * Issue #36's first failure shape, small: case-kit's manifest and its first module. Every wrong
 * manifest the fake writes is the same plausible one (`"type": "commonjs"`), which passes the
 * manifest's own check (it only parses the JSON) and breaks every candidate of the module after it.
 */
const [manifest, words] = caseKit.leaves;
const MINI: ProductIdea = {
  ...caseKit,
  leaves: [
    { ...manifest!, misconception: { ...manifest!.misconception!, share: 1 } },
    { ...words!, dependsOn: [0] },
  ],
};
/** A seed whose first vote on the manifest is won by the wrong one (found by running seeds 1–8). */
const SEED = 8;

/** A MAKER run of MINI on the fallible fake, as `maker run --worker gemini --hitl auto` makes it. */
async function makerRun(
  dir: string,
  fake: RealisticModel,
  stopWhen?: (event: EngineEvent) => boolean,
) {
  const workspace = await openWorkspace(dir, true, workspaceSettings({}));
  try {
    const config = runConfig({
      worker: 'gemini',
      hitl: 'auto',
      seed: SEED,
      install: '',
      defaultBranch: await workspace.currentBranch(),
    });
    const roles = await WORKERS.gemini.roles(config, workspace, readSettings({}), {
      model: fake,
      editFormat: 'json',
    });
    const engine = engineFor(dir, workspace, roles, { secrets: [], env: {} });
    const { events, stop, done } = listenTo(engine, stopWhen);
    const state = await engine.state();
    const runId = Object.keys(state.runs)[0] ?? (await engine.create(MINI.idea, config));
    let outcome = await engine.run(runId, { signal: stop });
    const interrupted = outcome.status;
    // Stopped on purpose: a new engine over the same files resumes it, as after a kill.
    if (stopWhen !== undefined) {
      const again = engineFor(dir, workspace, roles, { secrets: [], env: {} });
      outcome = await again.run(runId);
    }
    await done();
    const run = await engineFor(dir, workspace, roles, { secrets: [], env: {} }).getRun(runId);
    const root = run.nodes[run.rootId]!;
    const landed = root.commit;
    const tree = landed === undefined ? undefined : await workspace.treeOf(landed);
    const files = landed === undefined ? [] : await workspace.readFiles(landed, ['package.json']);
    const audit = run.nodes['0']?.branch;
    return {
      interrupted,
      outcome,
      run,
      events,
      tree,
      manifest: files[0]?.content ?? '',
      audited: audit === undefined ? undefined : await workspace.resolve(`${audit}-reopened-1`),
    };
  } finally {
    await workspace.close();
  }
}

describe('reopening a finished subtask a later failure is traced to (issue #36)', () => {
  let first: Awaited<ReturnType<typeof makerRun>> | undefined;

  it('reopens the wrong manifest, votes it again without the blamed answer and lands a working product', async () => {
    first = await makerRun(await tempDir(), new RealisticModel(knobs()));
    const { outcome, run, events, manifest: landed } = first;
    expect(outcome.status).toBe('done');
    const reopens = run.reopens ?? [];
    expect(reopens).toHaveLength(1);
    const [reopen] = reopens;
    expect(reopen?.node).toBe('0');
    expect(reopen?.signature).toMatch(/SyntaxError/);
    // The blamed answer is out of the new vote, and the product is an ES module package again.
    expect(run.nodes['0']?.reopen?.count).toBe(1);
    expect(run.nodes['0']?.reopen?.excluded).toContain(reopen?.excluded);
    expect(run.nodes['0']?.leaf?.outcome?.key).not.toBe(reopen?.excluded);
    expect(JSON.parse(landed)).toMatchObject({ type: 'module' });
    expect(run.reopening).toBeUndefined();
    // Said in words, where people look.
    const said = events.find((e) => e.type === 'node-reopened');
    expect(said).toMatchObject({ nodeId: '0' });
    expect(said?.type === 'node-reopened' ? said.reason : '').toMatch(
      /^reopened 0 \(.+\) because all \d+ candidates of .+ failed their check: `SyntaxError/,
    );
    // The answer set aside is kept under an audit ref.
    expect(first.audited).toBe(reopen?.replaced);
  }, 120_000);

  it('stopped right after the blame vote, resumes to the same tree', async () => {
    const stopped = await makerRun(
      await tempDir(),
      new RealisticModel(knobs()),
      (e) => e.type === 'vote-end' && e.vote === 'blame',
    );
    expect(stopped.interrupted).toBe('cancelled');
    expect(stopped.outcome.status).toBe('done');
    expect(stopped.run.reopens).toHaveLength(1);
    expect(first).toBeDefined();
    // A tree hash, not two undefined values: the landed tree after the kill is the unkilled one.
    expect(stopped.tree).toMatch(/^[0-9a-f]{40}$/);
    expect(stopped.tree).toBe(first?.tree);
  }, 120_000);
});

function knobs() {
  return { p: 0.5, slip: 0, judgeAccuracy: 0.9, seed: SEED, ideas: [MINI] };
}
