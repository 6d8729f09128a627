import { describe, expect, it } from 'vitest';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { BALLOT_CRITERIA } from '../../src/core/voting/criteria.js';
import type { RunConfig } from '../../src/core/tree/schema.js';
import { LlmPlanner } from '../../src/engine/models/llm-planner.js';
import { LlmWorker } from '../../src/engine/models/llm-worker.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import { openWorkspace, runConfig } from '../../src/app/wiring/wiring.js';
import { ScriptedModel, SUMS, subtask } from '../helpers/scripted-model.js';
import { useTempDirs } from '../helpers/tmp.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();

async function runWith(model: ScriptedModel, config: Partial<RunConfig> = {}) {
  const dir = await tempDir();
  const workspace = await openWorkspace(dir, true, workspaceSettings());
  const engine = new MakerEngine({
    workspace,
    roles: { planner: new LlmPlanner(model), worker: new LlmWorker(model, workspace) },
    store: makerStateFile(dir),
  });
  const runId = await engine.create('a sum library', {
    ...runConfig({
      worker: 'gemini',
      hitl: 'auto',
      defaultBranch: 'main',
      model: model.id,
      maxDepth: 1,
      // The scripted plans carry no checks: these tests are about agreement, not checks.
      runChecks: false,
    }),
    ...config,
  });
  const outcome = await engine.run(runId);
  expect(outcome.error).toBeUndefined();
  expect(outcome.status).toBe('done');
  return engine.getRun(runId);
}

describe('votes that real samples can win', () => {
  it('splits that differ only in prose are one answer, settled by agreement without a ballot', async () => {
    const model = new ScriptedModel('gemini-2.5-flash', {
      split: (slot) => ({
        subtasks: [
          subtask(
            slot % 2 === 0 ? 'Write the sum' : 'Write the sum.',
            `Adds numbers.${' More prose.'.repeat(slot)}`,
            'src/sum.js',
          ),
          subtask('Document it', `Explain usage, take ${slot}.`, './README.md', [0]),
        ],
        ambiguity: null,
      }),
    });
    const run = await runWith(model);
    const split = run.nodes['root']?.split;
    expect(split?.outcome?.status).toBe('decided');
    expect(split?.outcome?.settledBy).toBe('agreement');
    expect(split?.ballots).toEqual([]);
    expect(split?.outcome?.classes?.map((c) => c.slots)).toEqual([[0, 1, 2]]);
  });

  it('three different right programs: more are drawn before any ballot, and layouts of one agree', async () => {
    const model = new ScriptedModel('gemini-2.5-flash', {
      code: (_node, slot) =>
        [SUMS.loop, SUMS.reduce, SUMS.recursive][slot] ??
        (slot % 2 === 0 ? SUMS.loopCommented : SUMS.loop),
    });
    const run = await runWith(model);
    const leaf = run.nodes['0'];
    const record = leaf?.leaf;
    // 2k − 1 = 3 all different, then k − lead = 2 more: the loop's class leads 3 : 1 by k = 2, a
    // contested win, so k goes to 3 (4 : 1) and to its ceiling 4 (5 : 1), one more draw each.
    expect(record?.draws.length).toBe(7);
    expect(record?.k).toBe(4);
    expect(record?.ballots).toEqual([]);
    expect(record?.outcome?.status).toBe('decided');
    expect(record?.outcome?.settledBy).toBe('agreement');
    expect(record?.outcome?.classes?.[0]?.slots).toEqual([0, 3, 4, 5, 6]);
    // The first member of the class lands.
    expect(record?.draws[4]?.key).toBe(record?.draws[0]?.key);
    expect(record?.draws[4]?.tree).not.toBe(record?.draws[0]?.tree);
    expect(model.ballots).toEqual([]);
  });

  it('judges break a tie the cap leaves, told their criteria and shown the checks', async () => {
    const model = new ScriptedModel('gemini-2.5-flash', {
      code: (_node, slot) => [SUMS.loop, SUMS.reduce, SUMS.recursive][slot % 3] ?? SUMS.loop,
      judge: (options) => options.find((o) => o.content.includes('reduce'))?.label ?? 'A',
    });
    const run = await runWith(model, { maxCandidates: 3 });
    const record = run.nodes['0']?.leaf;
    expect(record?.outcome?.settledBy).toBe('ballots');
    const reduce = record?.draws.find((d) => d.slot === 1);
    expect(record?.outcome?.key).toBe(reduce?.key);
    expect(model.ballots.length).toBeGreaterThan(0);
    for (const ballot of model.ballots) {
      expect(ballot).toContain(BALLOT_CRITERIA.code);
      expect(ballot).toContain('Check: none ran on this change.');
      // The repository the worker saw.
      expect(ballot).toContain('The repository as it is now:');
    }
  });

  it('when most samples are red-flagged, the rest still go to the judges before anyone is asked', async () => {
    const model = new ScriptedModel('gemini-2.5-flash', {
      code: (node, slot) =>
        node !== '0' ? SUMS.loop : slot === 0 ? SUMS.loop : slot === 1 ? SUMS.reduce : null,
      judge: (options) => options.find((o) => o.content.includes('reduce'))?.label ?? 'A',
    });
    const run = await runWith(model, { maxCandidates: 6 });
    const record = run.nodes['0']?.leaf;
    expect(record?.draws.filter((d) => d.status === 'flagged')).toHaveLength(4);
    expect(record?.ballots.length).toBeGreaterThan(0);
    // Too many red flags for the vote to stand alone: asked, and --hitl auto takes the judges' pick.
    expect(record?.outcome?.status).toBe('human');
    expect(record?.outcome?.key).toBe(record?.draws[1]?.key);
  });

  it('with --hitl auto, a split vote the judges leave open goes to their favourite, not the first to arrive', async () => {
    const model = new ScriptedModel('gemini-2.5-flash', {
      // Every split different in structure: no agreement is possible.
      split: (slot) => ({
        subtasks: [
          subtask('Write the sum', 'Adds numbers.', 'src/sum.js'),
          ...Array.from({ length: slot + 1 }, (_, i) =>
            subtask(`Part ${i}`, 'More.', `src/part${i}.js`, [0]),
          ),
        ],
        ambiguity: null,
      }),
      // The judge likes the split of slot 1 (three subtasks).
      judge: (options) => options.find((o) => o.content.includes('3. Part 1'))?.label ?? 'A',
    });
    const run = await runWith(model, { maxCandidates: 3, maxBallots: 1 });
    const split = run.nodes['root']?.split;
    expect(split?.outcome?.status).toBe('human');
    expect(split?.outcome?.auto).toBe(true);
    expect(split?.outcome?.key).toBe(split?.draws[1]?.key);
    expect(run.nodes['root']?.children).toHaveLength(3);
    // Split ballots state what "best" means.
    const splitBallots = model.ballots.filter((b) => b.includes('Which decomposition'));
    expect(splitBallots.length).toBeGreaterThan(0);
    for (const ballot of splitBallots) expect(ballot).toContain(BALLOT_CRITERIA.split);
  });

  it("samples at the model table's temperature and thinking, and records an override in the state", async () => {
    const plain = new ScriptedModel('gemini-2.5-flash', {});
    await runWith(plain);
    expect(plain.requests.every((r) => r.temperature === 1)).toBe(true);
    const worker = plain.requests.find((r) => r.draw?.includes(':worker:'));
    const minimal = plain.requests.find((r) => r.draw?.includes(':minimal:'));
    expect(worker?.thinkingBudget).toBe(6144);
    expect(minimal?.thinkingBudget).toBe(1024);

    const three = new ScriptedModel('gemini-3-pro-preview', {});
    const dir = await tempDir();
    const workspace = await openWorkspace(dir, true, workspaceSettings());
    const engine = new MakerEngine({
      workspace,
      roles: { planner: new LlmPlanner(three), worker: new LlmWorker(three, workspace) },
      store: makerStateFile(dir),
    });
    const runId = await engine.create(
      'a sum library',
      runConfig({
        worker: 'gemini',
        hitl: 'auto',
        defaultBranch: 'main',
        model: three.id,
        maxDepth: 1,
        runChecks: false,
        sampling: { temperature: 0.7 },
      }),
    );
    expect((await engine.run(runId)).status).toBe('done');
    expect(three.requests.every((r) => r.temperature === 0.7)).toBe(true);
    expect(three.requests.find((r) => r.draw?.includes(':worker:'))?.thinkingLevel).toBe('high');
    expect(three.requests.find((r) => r.draw?.includes(':review:'))?.thinkingLevel).toBe('low');
    const saved = await makerStateFile(dir).load();
    const config = saved.runs[runId]?.config;
    expect(config?.sampling?.overrides).toEqual({ temperature: 0.7 });
    expect(config?.sampling?.roles.worker).toMatchObject({
      temperature: 0.7,
      thinkingLevel: 'high',
    });
  });
});
