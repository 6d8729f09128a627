import { describe, expect, it } from 'vitest';
import { MemoryWorkspace } from '../../src/adapters/memory/memory-workspace.js';
import { FLAWLESS, SimWorker } from '../../src/adapters/sim/project-sim.js';
import { AbortedError } from '../../src/core/errors.js';
import { STATE_SCHEMA_VERSION, type RunConfig } from '../../src/core/tree/schema.js';
import type { EngineEvent } from '../../src/engine/events.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import { NodeWindow, nodeWindowSize } from '../../src/engine/run/node-window.js';
import type { NodeContext, Planner } from '../../src/ports/planner.js';
import { ShapePlanner } from '../../src/surfaces/bench/tree-shape.js';
import { runConfig } from '../../src/app/wiring/wiring.js';

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('the node window', () => {
  it('lets nodes in up to its size, then in depth-first order as places free', async () => {
    const window = new NodeWindow(2);
    const entered: string[] = [];
    const leaves = new Map<string, () => void>();
    const enter = (name: string, order: number[]) =>
      void window.enter(order).then((leave) => {
        entered.push(name);
        leaves.set(name, leave);
      });
    enter('0', [0]);
    enter('1', [1]);
    enter('2', [2]);
    enter('1-0', [1, 0]);
    enter('0-1', [0, 1]);
    enter('0-0', [0, 0]);
    await flush();
    expect(entered).toEqual(['0', '1']);
    leaves.get('0')?.();
    leaves.get('0')?.(); // giving a place up twice frees it once
    await flush();
    expect(entered).toEqual(['0', '1', '0-0']);
    leaves.get('1')?.();
    leaves.get('0-0')?.();
    await flush();
    expect(entered).toEqual(['0', '1', '0-0', '0-1', '1-0']);
    expect(window.most).toBe(2);
  });

  it('is one place wider while a node waits on a person', async () => {
    const window = new NodeWindow(1);
    const leave = await window.enter([0]);
    let answer = (): void => undefined;
    const lent = window.lend(new Promise<void>((resolve) => (answer = resolve)));
    const second = await window.enter([1]);
    let third = false;
    void window.enter([2]).then(() => (third = true));
    answer();
    await lent;
    second();
    await flush();
    // Two places are held again by the first node and nothing else: the third waits.
    expect(third).toBe(false);
    leave();
    await flush();
    expect(third).toBe(true);
  });

  it('rejects waiting nodes, and every later one, when the halt aborts', async () => {
    const halt = new AbortController();
    const window = new NodeWindow(1, halt.signal);
    await window.enter([0]);
    const waiting = window.enter([1]);
    halt.abort(new Error('stop'));
    await expect(waiting).rejects.toBeInstanceOf(AbortedError);
    await expect(window.enter([2])).rejects.toBeInstanceOf(AbortedError);
  });

  it('is sized by the paid slots, and by the sessions of a worker that limits itself', () => {
    expect(nodeWindowSize(8, {})).toBe(32);
    expect(nodeWindowSize(4, { limitsItself: true, capacity: 60 })).toBe(76);
    expect(nodeWindowSize(4, { capacity: 60 })).toBe(16);
  });
});

/** Nodes at work per the events: from `node-start` to their split or their commit. */
function countActive(events: EngineEvent[]): { most: number; now: number } {
  let now = 0;
  let most = 0;
  for (const e of events) {
    if (e.type === 'node-start') now += 1;
    if (e.type === 'node-split' || e.type === 'commit-end') now -= 1;
    most = Math.max(most, now);
  }
  return { most, now };
}

function engineOn(
  planner: Planner,
  events: EngineEvent[],
  workspace = new MemoryWorkspace(),
  onEvent = (): void => undefined,
) {
  return new MakerEngine({
    workspace,
    roles: { planner, worker: new SimWorker({ seed: 1, ...FLAWLESS }) },
    journal: (e) => {
      events.push(e);
      onEvent();
    },
    store: {
      path: '(memory)',
      load: () => Promise.resolve({ $schemaVersion: STATE_SCHEMA_VERSION, runs: {} }),
      save: () => Promise.resolve(),
    },
  });
}

function treeConfig(
  planner: ShapePlanner,
  overrides: { concurrency?: number; hitl?: RunConfig['hitl'] },
): RunConfig {
  return runConfig({
    worker: 'sim',
    k: 2,
    hitl: 'auto',
    concurrency: 1,
    maxDepth: planner.shape.depth,
    maxNodes: planner.shape.nodes() + 100,
    defaultBranch: 'main',
    runChecks: false,
    ...overrides,
  });
}

describe('a run with the node window', () => {
  it('works on at most the window of nodes at once in a wide tree, and builds the same tree', async () => {
    // 64 leaves: the root splits into 8, each into 8. One paid slot: a window of 4 nodes.
    const trees: string[] = [];
    for (const concurrency of [1, 8]) {
      const planner = new ShapePlanner(64, 0);
      const events: EngineEvent[] = [];
      const workspace = new MemoryWorkspace();
      const engine = engineOn(planner, events, workspace);
      const runId = await engine.create('a wide tree', treeConfig(planner, { concurrency }));
      const outcome = await engine.run(runId);
      expect(outcome.status).toBe('done');
      const active = countActive(events);
      expect(active.now).toBe(0);
      expect(events.filter((e) => e.type === 'commit-end')).toHaveLength(64);
      if (concurrency === 1) {
        // Before the window, the root's eight children started together as it split.
        expect(active.most).toBeLessThanOrEqual(nodeWindowSize(1, {}));
        expect(active.most).toBeGreaterThan(1);
      }
      const root = (await engine.getRun(runId)).nodes['root'];
      trees.push(await workspace.treeOf(root?.commit ?? 'missing'));
    }
    expect(trees[0]).toBe(trees[1]);
  });
});

/** The shape planner, whose split of each node in `asking` first asks a person to clarify. */
function askingPlanner(leaves: number, asking: ReadonlySet<string>): ShapePlanner {
  const planner = new ShapePlanner(leaves, 0);
  const split = planner.proposeSplit.bind(planner);
  planner.proposeSplit = async (context: NodeContext) => {
    const reply = await split(context);
    if (!asking.has(context.nodeId) || context.clarifications.length > 0) return reply;
    const value = JSON.parse(reply.text) as Record<string, unknown>;
    const ambiguity = { question: `Which way for ${context.nodeId}?`, options: ['this', 'that'] };
    return { ...reply, text: JSON.stringify({ ...value, ambiguity }) };
  };
  return planner;
}

describe('a node waiting on a person', () => {
  it('does not hold the rest of the tree, however many wait', async () => {
    // A window of 4; five of the root's eight children ask before they split, and wait.
    const asking = new Set(['0', '1', '2', '3', '4']);
    const planner = askingPlanner(64, asking);
    const events: EngineEvent[] = [];
    const seen: { when: (e: EngineEvent[]) => boolean; resolve: () => void }[] = [];
    const until = (when: (e: EngineEvent[]) => boolean) =>
      new Promise<void>((resolve) => seen.push({ when, resolve }));
    const engine = engineOn(planner, events, new MemoryWorkspace(), () => {
      for (const s of seen) if (s.when(events)) s.resolve();
    });
    const runId = await engine.create('a wide tree', treeConfig(planner, { hitl: 'wait' }));
    const running = engine.run(runId);
    // The subtrees of children 5, 6 and 7 (8 leaves each) are solved and merged meanwhile.
    await until(
      (e) =>
        e.filter((x) => x.type === 'merge-end' && ['5', '6', '7'].includes(x.nodeId)).length === 24,
    );
    const pending = await engine.pendingQuestions(runId);
    expect(pending.map((q) => q.id).sort()).toEqual(
      [...asking].map((id) => `q-${id}-clarify-0`).sort(),
    );
    const veto = until((e) =>
      e.some((x) => x.type === 'question-asked' && x.question.kind === 'veto'),
    );
    for (const q of pending) await engine.answer(runId, q.id, 'this');
    // The result is unchecked (no checks run here): whether to land it is asked too.
    await veto;
    await engine.answer(runId, 'q-root-veto', 'accept');
    const outcome = await running;
    expect(outcome.status).toBe('done');
    expect(events.filter((e) => e.type === 'commit-end')).toHaveLength(64);
  });
});
