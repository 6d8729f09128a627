import { describe, expect, it } from 'vitest';
import { GitWorkspace } from '../../src/adapters/git/git-workspace.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { runCheckCounts } from '../../src/core/checks.js';
import type { ModelResponse } from '../../src/core/red-flags/index.js';
import type { Subtask } from '../../src/core/tree/schema.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import { summarise } from '../../src/core/view/summary.js';
import type { NodeContext, Planner } from '../../src/ports/planner.js';
import type { Worker, WorkerTask } from '../../src/ports/worker.js';
import type { FileEdit, Workspace } from '../../src/ports/workspace.js';
import { baseConfig } from '../helpers/engine.js';
import { useTempDirs } from '../helpers/tmp.js';
import { machineSandbox } from '../helpers/settings.js';

const tempDir = useTempDirs();
const sandbox = await machineSandbox();

const reply = (value: unknown): Promise<ModelResponse> =>
  Promise.resolve({ text: JSON.stringify(value), finishReason: 'stop', outputTokens: 10 });

/**
 * A planner whose root splits into `subtasks` (its children are minimal), judges that pick the
 * first option and a review that passes everything. `splits` records every split prompt's context.
 */
function plannerOf(subtasks: (slot: number) => Subtask[], splits: NodeContext[] = []): Planner {
  return {
    id: 'scripted',
    isMinimal: (c) => reply({ minimal: c.nodeId !== 'root', reason: 'scripted' }),
    proposeSplit: (c, call) => {
      splits.push(c);
      return reply({ subtasks: subtasks(call.slot), ambiguity: null });
    },
    // A blame ballot (engine/trace.ts) is answered "none of these": the merge itself is at fault.
    castBallot: (_c, question, options) =>
      reply({
        choice: /most likely cause/.test(question)
          ? (options.find((o) => o.content.startsWith('None of these'))?.label ?? 'A')
          : 'A',
        reason: 'first',
      }),
    reviewCandidate: () => reply({ verdict: 'ok', confidence: 0.9, reason: 'fine' }),
  };
}

/** A worker that writes, for each task title, the files `write` gives (the same every time). */
function workerOf(write: (task: WorkerTask) => FileEdit[]): Worker {
  return {
    id: 'scripted',
    run: (task) => Promise.resolve({ ok: true, edits: write(task), summary: 'scripted' }),
  };
}

/** A git workspace whose sandbox probe says what the test wants, counting the checks asked of it. */
async function workspaceWith(dir: string, sandboxed: boolean) {
  const workspace = await GitWorkspace.open(dir, {
    create: true,
    sandbox: () => (sandboxed ? machineSandbox() : Promise.resolve(undefined)),
  });
  const ran: string[] = [];
  const counted = <W extends Workspace>(w: W): W => {
    const runCheck = w.runCheck.bind(w);
    w.runCheck = (tree, command, timeoutMs, signal) => {
      ran.push(command);
      return runCheck(tree, command, timeoutMs, signal);
    };
    return w;
  };
  counted(workspace);
  // A run checks its candidates in its own workspace (over its scratch object store).
  const scratch = workspace.scratch.bind(workspace);
  workspace.scratch = async (runId) => counted(await scratch(runId));
  return { workspace, ran };
}

const twoParts = (check: (i: number) => string | undefined): Subtask[] =>
  ['a', 'b'].map((d, i) => ({
    title: `Part ${d}`,
    description: `Write ${d}/.`,
    acceptance: [],
    files: [`${d}/`],
    dependsOn: [],
    ...(check(i) === undefined ? {} : { check: check(i) }),
  }));

describe('checks are part of the plan', () => {
  it('red-flags a split whose subtask has no check, and draws it again', async () => {
    const dir = await tempDir();
    const { workspace, ran } = await workspaceWith(dir, false);
    const splits: NodeContext[] = [];
    // The first draw leaves part b without a check; every later draw gives both one.
    const planner = plannerOf(
      (slot) => twoParts((i) => (slot === 0 && i === 1 ? undefined : `test -f ${'ab'[i]}/x`)),
      splits,
    );
    const worker = workerOf((t) => [{ path: `${t.context.task.files[0]}x`, content: 'x\n' }]);
    const engine = new MakerEngine({
      workspace,
      roles: { planner, worker },
      store: makerStateFile(dir),
    });
    const runId = await engine.create('two parts', {
      ...baseConfig,
      runChecks: true,
      hitl: 'defer',
    });
    await engine.run(runId);
    const run = await engine.getRun(runId);
    const root = run.nodes['root'];
    const flagged = root?.split?.draws.filter((d) => d.status === 'flagged') ?? [];
    expect(flagged.map((d) => d.flags.map((f) => f.rule))).toContainEqual(['missing-check']);
    expect(flagged[0]?.flags[0]?.message).toMatch(/2 \("Part b"\) has none/);
    // The split that won carries a check on every subtask.
    expect(root?.children.map((id) => run.nodes[id]?.check)).toEqual([
      'test -f a/x',
      'test -f b/x',
    ]);
    // The planner was told where checks run, and that each subtask needs one.
    expect(splits[0]?.checks).toMatch(/no network/);
    expect(splits[0]?.checks).toMatch(/node --test.*python3 -m unittest/s);
    await workspace.close();
    expect(ran).toEqual([]);
  });
});

describe('a split whose every plan is red-flagged', () => {
  /** An engine whose planner leaves part b without a check in every plan of the first `bad` attempts. */
  async function flaggedRun(bad: number, options: { check?: string } = {}) {
    const dir = await tempDir();
    const { workspace } = await workspaceWith(dir, false);
    const planner = plannerOf((slot) =>
      twoParts((i) => (slot < bad * 1000 && i === 1 ? undefined : `test -f ${'ab'[i]}/x`)),
    );
    const worker = workerOf(() => [{ path: 'a/x', content: 'x\n' }]);
    const engine = new MakerEngine({
      workspace,
      roles: { planner, worker },
      store: makerStateFile(dir),
    });
    const runId = await engine.create(
      'two parts',
      { ...baseConfig, runChecks: true, hitl: 'auto' },
      options,
    );
    const outcome = await engine.run(runId);
    return { engine, runId, outcome, run: await engine.getRun(runId), workspace };
  }

  it('--hitl auto draws new plans once, and the run goes on with them', async () => {
    const { outcome, run, workspace } = await flaggedRun(1);
    expect(outcome.error ?? '').not.toMatch(/decomposition/);
    const root = run.nodes['root'];
    expect(root?.split?.attempt).toBe(1);
    expect(root?.split?.retired).toBeDefined();
    expect(root?.children).toEqual(['0', '1']);
    const asked = run.questions.find((q) => q.id === 'q-root-split-0-flagged');
    expect(asked?.prompt).toMatch(
      /Every decomposition proposed for "two parts" was red-flagged \(8 tries\)/,
    );
    expect(asked?.context).toMatch(/missing-check ×8/);
    expect(asked?.answer).toMatchObject({ optionId: 'resample', auto: true });
    expect(asked?.options[0]?.id).toBe('resample');
    await workspace.close();
  });

  it('flagged again, it stops for a person, who may have a node with a check solved whole', async () => {
    const { engine, runId, outcome, workspace } = await flaggedRun(9, { check: 'test -f a/x' });
    expect(outcome.status).not.toBe('done');
    expect(outcome.error).toMatch(/A person's decision is needed.*q-root-split-1-flagged/s);
    let run = await engine.getRun(runId);
    const asked = run.questions.find((q) => q.id === 'q-root-split-1-flagged');
    expect(asked?.options.map((o) => o.id)).toEqual(['resample', 'whole']);
    await engine.answer(runId, 'q-root-split-1-flagged', 'whole');
    await engine.run(runId);
    run = await engine.getRun(runId);
    expect(run.nodes['root']?.kind).toBe('leaf');
    expect(run.nodes['root']?.children).toEqual([]);
    expect(run.nodes['root']?.leaf?.draws.length ?? 0).toBeGreaterThan(0);
    await workspace.close();
  });
});

/** A planner that calls every task minimal, the root included, noting each node it was asked about. */
function minimalEverywhere(asked: string[]): Planner {
  return {
    ...plannerOf(() => twoParts((i) => `test -f ${'ab'[i]}/x`)),
    isMinimal: (c) => {
      asked.push(c.nodeId);
      return reply({ minimal: true, reason: 'small' });
    },
  };
}

describe.skipIf(sandbox === undefined)('a root with no check, where checks run', () => {
  it('is split without a minimality vote (a leaf must carry a check), and the result is verified', async () => {
    const dir = await tempDir();
    const { workspace } = await workspaceWith(dir, true);
    const asked: string[] = [];
    const planner = minimalEverywhere(asked);
    const worker = workerOf((t) => [{ path: `${t.context.task.files[0]}x`, content: 'x\n' }]);
    const engine = new MakerEngine({
      workspace,
      roles: { planner, worker },
      store: makerStateFile(dir),
    });
    const runId = await engine.create('two parts', { ...baseConfig, runChecks: true });
    const outcome = await engine.run(runId);
    expect(outcome.error).toBeUndefined();
    expect(outcome.status).toBe('done');
    const run = await engine.getRun(runId);
    expect(asked).not.toContain('root');
    expect(run.nodes['root']?.minimal).toBeUndefined();
    expect(run.nodes['root']?.children).toHaveLength(2);
    expect(runCheckCounts(run)).toMatchObject({ ran: 2, passed: 2, verified: true });
    await workspace.close();
  });

  it('is voted on as before when the run has an overall check', async () => {
    const dir = await tempDir();
    const { workspace } = await workspaceWith(dir, true);
    const asked: string[] = [];
    const planner = minimalEverywhere(asked);
    const worker = workerOf(() => [{ path: 'a/x', content: 'x\n' }]);
    const engine = new MakerEngine({
      workspace,
      roles: { planner, worker },
      store: makerStateFile(dir),
    });
    const runId = await engine.create(
      'one part',
      { ...baseConfig, runChecks: true },
      {
        check: 'test -f a/x',
      },
    );
    const outcome = await engine.run(runId);
    expect(outcome.status).toBe('done');
    expect(asked).toContain('root');
    expect((await engine.getRun(runId)).nodes['root']?.kind).toBe('leaf');
    await workspace.close();
  });
});

describe('without a sandbox', () => {
  it('completes, says unverified everywhere, never lands on its own, and runs no command', async () => {
    const dir = await tempDir();
    const { workspace, ran } = await workspaceWith(dir, false);
    const events: string[] = [];
    const planner = plannerOf(() => twoParts((i) => `test -f ${'ab'[i]}/x`));
    const worker = workerOf((t) => [{ path: `${t.context.task.files[0]}x`, content: 'x\n' }]);
    const engine = new MakerEngine({
      workspace,
      roles: { planner, worker },
      store: makerStateFile(dir),
      journal: (e) => {
        events.push(e.type);
      },
    });
    const runId = await engine.create('two parts', { ...baseConfig, runChecks: true }, {});
    // --hitl auto cannot ask whether to land an unverified result: it stops, nothing landed.
    const stopped = await engine.run(runId);
    expect(stopped.status).toBe('failed-checks');
    expect(stopped.error).toMatch(/unverified.*nothing landed/i);
    const base = (await engine.getRun(runId)).baseCommit;
    expect(await workspace.resolve('main')).toBe(base);
    // A person asked instead: the question says unverified; accepting lands it, still unverified.
    const run = await engine.getRun(runId);
    run.config.hitl = 'defer';
    await engine.persist();
    const veto = (await engine.pendingQuestions(runId)).find((q) => q.id === 'q-root-veto');
    expect(veto?.prompt).toMatch(/UNVERIFIED: no sandbox works on this machine/);
    await engine.answer(runId, 'q-root-veto', 'accept');
    expect((await engine.run(runId)).status).toBe('done');
    const summary = summarise(await engine.getRun(runId));
    expect(summary.checks).toEqual({ ran: 0, passed: 0, failed: 0, notRun: 2, verified: false });
    expect(Object.values(summary.nodeChecks).every((c) => !c.verified)).toBe(true);
    // Said once per start, and no command ran, confined or not.
    expect(events.filter((e) => e === 'checks-unavailable')).toHaveLength(2);
    expect(ran).toEqual([]);
    await workspace.close();
  });
});

describe.skipIf(sandbox === undefined)('checks up the tree', () => {
  it('repairs a merge that breaks a sibling check, with the failure in the prompt', async () => {
    const dir = await tempDir();
    const { workspace, ran } = await workspaceWith(dir, true);
    // Part a passes its own check, but writes a mode part b's check refuses: b's check passes on
    // b's own result, and fails once a is merged in.
    const planner = plannerOf(() =>
      twoParts((i) => (i === 0 ? 'test -f a/mode' : 'test -f b/x && ! grep -qx bad a/mode')),
    );
    const repairs: WorkerTask[] = [];
    const worker = workerOf((t) => {
      const title = t.context.task.title;
      if (title.startsWith('Repair')) {
        repairs.push(t);
        return [{ path: 'a/mode', content: 'good\n' }];
      }
      return title === 'Part a'
        ? [{ path: 'a/mode', content: 'bad\n' }]
        : [{ path: 'b/x', content: 'x\n' }];
    });
    const engine = new MakerEngine({
      workspace,
      roles: { planner, worker },
      store: makerStateFile(dir),
    });
    const runId = await engine.create('two parts', { ...baseConfig, runChecks: true });
    const outcome = await engine.run(runId);
    expect(outcome.status).toBe('done');
    const run = await engine.getRun(runId);
    // The merge of b broke b's check; its repair was told what failed, and had to pass it.
    const record = run.nodes['root']?.integrations['1-checks'];
    expect(record?.outcome?.status).toBe('decided');
    expect(repairs[0]?.context.task.description).toMatch(
      /\$ test -f b\/x && ! grep -qx bad a\/mode/,
    );
    expect(repairs[0]?.checks).toEqual(['test -f a/mode', 'test -f b/x && ! grep -qx bad a/mode']);
    // The final tree passes every check, and says so.
    const [mode] = await workspace.readFiles('main', ['a/mode']);
    expect(mode?.content).toBe('good\n');
    expect(runCheckCounts(run)).toEqual({
      ran: 2,
      passed: 2,
      failed: 0,
      notRun: 0,
      verified: true,
    });
    expect(summarise(run).nodeChecks['root']?.verified).toBe(true);
    expect(ran.length).toBeGreaterThan(0);
    await workspace.close();
  }, 60_000);
});
