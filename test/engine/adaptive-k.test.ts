import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import type { RunConfig, VoteRecord } from '../../src/core/tree/schema.js';
import type { EngineEvent } from '../../src/engine/events.js';
import { LlmPlanner } from '../../src/engine/models/llm-planner.js';
import { LlmWorker } from '../../src/engine/models/llm-worker.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import { renderNode, renderTree } from '../../src/core/view/summary.js';
import { openWorkspace, runConfig } from '../../src/app/wiring/wiring.js';
import { maker } from '../helpers/cli.js';
import { ScriptedModel, SUMS, type Script } from '../helpers/scripted-model.js';
import { useTempDirs } from '../helpers/tmp.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();

/** A wrong sum every wrong sample writes the same way: a shared misconception. */
const WRONG = 'export function sum(xs) {\n  return xs.length;\n}\n';

/** Subtask 0's candidates by slot (then the loop); the other subtask's are all the loop. */
function code(bySlot: readonly string[], onDraw?: (slot: number) => void): Script['code'] {
  return (node, slot) => {
    if (node !== '0') return SUMS.loop;
    onDraw?.(slot);
    return bySlot[slot] ?? SUMS.loop;
  };
}

/** Judges who know the right sum when they see it. */
const RIGHT_JUDGE: Script['judge'] = (options) =>
  options.find((o) => o.content.includes('reduce'))?.label ?? 'A';

/** An engine over `dir` (a new repository with `init`, else the one a run left). */
async function start(dir: string, script: Script, init = true) {
  const model = new ScriptedModel('gemini-2.5-flash', script);
  const workspace = await openWorkspace(dir, init, workspaceSettings());
  const engine = new MakerEngine({
    workspace,
    roles: { planner: new LlmPlanner(model), worker: new LlmWorker(model, workspace) },
    store: makerStateFile(dir),
  });
  return { engine, workspace };
}

/** One run to its end (k = 2, a cap of 8 candidates: the medium preset), and its events. */
async function runWith(script: Script, config: Partial<RunConfig> = {}) {
  const dir = await tempDir();
  const { engine, workspace } = await start(dir, script);
  const runId = await engine.create('a sum library', { ...baseConfig(), ...config });
  const events: EngineEvent[] = [];
  const listening = (async () => {
    for await (const e of engine.events()) events.push(e);
  })();
  const outcome = await engine.run(runId);
  engine.close();
  await listening;
  await workspace.close();
  expect(outcome.error).toBeUndefined();
  expect(outcome.status).toBe('done');
  const run = await engine.getRun(runId);
  return { run, record: run.nodes['0']?.leaf, events, dir };
}

function baseConfig() {
  return runConfig({
    worker: 'gemini',
    hitl: 'auto',
    defaultBranch: 'main',
    model: 'gemini-2.5-flash',
    maxDepth: 1,
    // About votes, not checks.
    runChecks: false,
  });
}

describe('adaptive k: a narrow win does not decide, the vote goes on at k + 1', () => {
  it('3 : 1 with a rival: k is raised, more candidates drawn, and the vote says so', async () => {
    const { run, record, events, dir } = await runWith({
      code: code([SUMS.loop, SUMS.loop, SUMS.reduce, SUMS.loop]),
    });
    // Decided 3 : 1 at k = 2 before; now 4 : 1 at k = 3 (narrow again), then 5 : 1 at the ceiling 4.
    expect(record?.draws).toHaveLength(6);
    expect(record?.k).toBe(4);
    expect(record?.kRaised).toEqual([
      'contested 3 : 1, ahead by exactly k = 2',
      'contested 4 : 1, ahead by exactly k = 3',
    ]);
    expect(record?.outcome).toMatchObject({ status: 'decided', settledBy: 'agreement' });
    expect(record?.outcome?.classes?.[0]?.slots).toEqual([0, 1, 3, 4, 5]);
    const raised = events.filter((e) => e.type === 'vote-k-raised' && e.nodeId === '0');
    expect(raised.map((e) => (e.type === 'vote-k-raised' ? [e.from, e.to] : []))).toEqual([
      [2, 3],
      [3, 4],
    ]);
    const end = events.find((e) => e.type === 'vote-end' && e.nodeId === '0');
    expect(end).toMatchObject({ votes: 5, runnerUpVotes: 1, k: 4 });

    // The k used, where a person looks: the tree, the node, `maker status` and its JSON.
    expect(renderTree(run)).toMatch(
      /0 \[done, leaf\] Write the sum · 5 : 1 sample votes · k 2 → 4 ·/,
    );
    expect(renderNode(run, '0')).toContain(
      'k raised 2 → 4 after a narrow win: contested 3 : 1, ahead by exactly k = 2; then contested 4 : 1, ahead by exactly k = 3',
    );
    const status = await maker(['status', '--dir', dir]);
    expect(status.stdout).toContain('Write the sum · 5 : 1 sample votes · k 2 → 4');
    const json = JSON.parse((await maker(['status', '--dir', dir, '--json'])).stdout) as {
      nodes: { id: string; k: unknown }[];
    };
    expect(json.nodes.find((n) => n.id === '0')?.k).toEqual({ leaf: 4 });
    expect(json.nodes.find((n) => n.id === '1')?.k).toEqual({ leaf: 2 });
    expect(json.nodes.find((n) => n.id === 'root')?.k).toEqual({ split: 2 });
  });

  it('a clear win (3 : 0) keeps k and draws no more', async () => {
    const { run, record, events } = await runWith({ code: code([]) });
    expect(record?.draws).toHaveLength(3);
    expect(record?.k).toBeUndefined();
    expect(events.some((e) => e.type === 'vote-k-raised')).toBe(false);
    expect(run.nodes['1']?.leaf?.k).toBeUndefined();
  });

  it("the run's cap holds: with no draw left a narrow 3 : 1 stands at k = 2", async () => {
    const { record } = await runWith(
      { code: code([SUMS.loop, SUMS.loop, SUMS.reduce, SUMS.loop]) },
      { maxCandidates: 4 },
    );
    expect(record?.draws).toHaveLength(4);
    expect(record?.k).toBeUndefined();
    expect(record?.outcome).toMatchObject({ status: 'decided', votes: 3, runnerUpVotes: 1 });
  });

  it('a raise that settles nothing keeps the decision before it: no question, the win at k = 2 stands', async () => {
    const pattern = [
      SUMS.loop,
      SUMS.loop,
      SUMS.reduce,
      SUMS.loop,
      SUMS.reduce,
      SUMS.loop,
      SUMS.reduce,
    ];
    // Judges who answer with no option: every ballot red-flagged, so they settle nothing.
    const { run, record, events, dir } = await runWith({ code: code(pattern), judge: () => 'Z' });
    // 3 : 1 at k = 2 (narrow) → k = 3: 4 : 3 after 7 draws, no agreement within the cap of 8
    // (one draw left cannot make a lead of 3), judges unsettled → the 3 : 1 decision stands.
    expect(record?.k).toBe(3);
    expect(record?.draws).toHaveLength(7);
    expect(record?.ballots.length).toBeGreaterThan(0);
    expect(record?.ballots.every((b) => b.status === 'flagged')).toBe(true);
    expect(record?.outcome).toMatchObject({
      status: 'decided',
      settledBy: 'agreement',
      votes: 3,
      runnerUpVotes: 1,
      stoodAtK: 2,
      draws: 7,
    });
    expect(record?.outcome?.key).toBe(record?.draws[0]?.key);
    expect(run.questions.filter((q) => q.nodeId === '0')).toEqual([]);
    expect(await readFile(join(dir, 'src', 'sum.js'), 'utf8')).toBe(SUMS.loop);
    expect(events.find((e) => e.type === 'vote-k-stood' && e.nodeId === '0')).toMatchObject({
      k: 3,
      stoodAt: 2,
    });
    expect(renderNode(run, '0')).toContain(
      'it did not settle at k = 3, so the decision at k = 2 stands',
    );
  });

  it('a misconception in 2 of every 4 samples wins 4 : 2 at k = 2; raised, the judges catch it', async () => {
    const pattern = [WRONG, WRONG, SUMS.reduce, SUMS.reduce, WRONG, WRONG, SUMS.reduce];
    const { record, dir } = await runWith({ code: code(pattern), judge: RIGHT_JUDGE });
    // The right sum lands (at k = 2 the misconception won 4 : 2 by agreement, no judge asked).
    expect(await readFile(join(dir, 'src', 'sum.js'), 'utf8')).toContain('reduce');
    expect(record?.outcome?.key).toBe(record?.draws[2]?.key);
    expect(record?.outcome).toMatchObject({ status: 'decided', settledBy: 'ballots' });
    // 4 : 2 (contested) → k = 3: one more draw, 4 : 3, no agreement within the cap → judges pick
    // the right sum over the class with more samples → k = 4, judges again, 4 : 0.
    expect(record?.kRaised).toEqual([
      'contested 4 : 2, ahead by exactly k = 2',
      "judges chose a class with 3 sample votes over the leader's 4",
    ]);
    expect(record?.draws.length).toBeLessThanOrEqual(8);
  });

  /** The uninterrupted run the killed ones must match (made once). */
  let reference: Promise<VoteRecord | undefined> | undefined;
  it.each([3, 4])(
    'a kill while drawing slot %i, then a resume: the same raised k and outcome',
    async (killAt) => {
      const pattern = [SUMS.loop, SUMS.loop, SUMS.reduce, SUMS.loop];
      reference ??= runWith({ code: code(pattern) }).then((r) => r.record);
      const expected = await reference;
      const dir = await tempDir();
      const stop = new AbortController();
      const first = await start(dir, { code: code(pattern, (s) => s === killAt && stop.abort()) });
      const runId = await first.engine.create('a sum library', baseConfig());
      expect((await first.engine.run(runId, { signal: stop.signal })).status).toBe('cancelled');
      await first.workspace.close();
      const saved = (await first.engine.getRun(runId)).nodes['0']?.leaf;
      expect(saved?.outcome).toBeUndefined();
      expect(saved?.k).toBe(killAt === 3 ? undefined : 3);

      const second = await start(dir, { code: code(pattern) }, false);
      expect((await second.engine.run(runId)).status).toBe('done');
      await second.workspace.close();
      const record = (await second.engine.getRun(runId)).nodes['0']?.leaf;
      expect(record?.k).toBe(4);
      expect(record?.draws.map((d) => d.key)).toEqual(expected?.draws.map((d) => d.key));
      expect(record?.outcome).toEqual(expected?.outcome);
    },
  );
});
