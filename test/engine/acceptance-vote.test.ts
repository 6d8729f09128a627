import { describe, expect, it } from 'vitest';
import { newNode } from '../../src/core/tree/nodes.js';
import type { Run, TreeNode } from '../../src/core/tree/schema.js';
import { acceptanceFlag, voteAcceptanceTest } from '../../src/engine/checks/acceptance-test.js';
import { dropFailingTest } from '../../src/engine/checks/acceptance-doubt.js';
import type { EngineEventInput } from '../../src/engine/events.js';
import type { RunContext } from '../../src/engine/run/run-context.js';
import type { Planner } from '../../src/ports/planner.js';
import type { Workspace } from '../../src/ports/workspace.js';
import { baseConfig } from '../helpers/engine.js';

/**
 * The test vote on its own, with a fake workspace whose "sandbox" passes a test only where the
 * leaf's code is: trees are strings, and `with:<path>` marks the test file written in.
 */
const RIGHT = {
  path: 'test/add.test.js',
  content: "import { add } from '../src/add.js';\nassert(add(2, 3) === 5);\n",
  command: 'node --test test/add.test.js',
};
const VACUOUS = { ...RIGHT, content: "test('planned', () => {});\n" };

function setUp(answers: (slot: number) => unknown, runChecks = true) {
  const node: TreeNode = newNode('0', null, 1, 0, {
    title: 'Add add()',
    description: 'src/add.js exports add(a, b), their sum.',
    acceptance: ['add(2, 3) is 5'],
    files: ['src/add.js', 'test/add.test.js'],
    dependsOn: [],
    check: `node -e "import('./src/add.js')"`,
  });
  const run: Run = {
    id: 'r-test',
    idea: 'an adder',
    createdAt: new Date(0).toISOString(),
    status: 'running',
    config: { ...baseConfig, runChecks },
    baseCommit: 'base',
    rootId: '0',
    nodes: { '0': node },
    questions: [],
    eventSeq: 0,
    sandbox: 'fake',
  };
  const asked: number[] = [];
  const events: EngineEventInput[] = [];
  const reply = (slot: number) => {
    asked.push(slot);
    const value = answers(slot);
    return Promise.resolve({ text: typeof value === 'string' ? value : JSON.stringify(value) });
  };
  const workspace = {
    treeWithEdits: (tree: string, edits: readonly { path: string }[]) =>
      Promise.resolve(`${tree}+with:${edits.map((e) => e.path).join(',')}`),
    // A test passes on a tree with the code (`code…`), or when it tests nothing.
    runCheck: (tree: string) =>
      Promise.resolve({
        ok: tree.startsWith('code') || tree.includes('vacuous'),
        output: 'Error: Cannot find module src/add.js',
      }),
  } as unknown as Workspace;
  const ctx = {
    run,
    workspace,
    checks: workspace,
    planner: {
      proposeTest: (_context, call) => reply(call.slot),
    } as Partial<Planner> as Planner,
    worker: { id: 'none', run: () => Promise.reject(new Error('no worker here')) },
    signal: new AbortController().signal,
    now: () => new Date(0),
    secrets: [],
    save: () => Promise.resolve(),
    emit: (e: EngineEventInput) => void events.push(e),
    paid: (work: () => Promise<unknown>) => work(),
    services: {
      reserveSession: () => Promise.resolve({ ok: true }),
      wait: () => () => undefined,
    },
    publish: () => undefined,
    checkpoint: () => Promise.resolve(),
    ask: () => Promise.reject(new Error('no questions')),
  } as unknown as RunContext;
  return { ctx, node, asked, events };
}

describe('the acceptance-test vote (issue #36)', () => {
  it('red-flags malformed, out-of-scope and non-test answers, votes ahead by k, and keeps a test that fails without the code', async () => {
    const bad = [
      '{"test": {"path": "test/add.test.js"}}',
      { test: { ...RIGHT, path: 'test/other.test.js', command: 'node --test test/other.test.js' } },
      { test: { ...RIGHT, path: 'src/add.js', command: 'node src/add.js' } },
    ];
    const { ctx, node, events } = setUp((slot) => bad[slot] ?? { test: RIGHT, reason: '' });
    await voteAcceptanceTest(ctx, node, 'base');
    const draws = node.acceptanceTest?.vote.draws ?? [];
    expect(draws.slice(0, 3).map((d) => d.flags.map((f) => f.rule))).toEqual([
      ['schema'],
      ['out-of-scope'],
      ['not-a-test-file'],
    ]);
    expect(node.acceptanceTest?.vote.outcome).toMatchObject({ status: 'decided', votes: 2 });
    expect(node.acceptanceTest?.status).toBe('kept');
    expect(events.at(-1)).toMatchObject({ type: 'acceptance-test', status: 'kept' });
    // A candidate without the behaviour fails it, with the test's output as the reason.
    expect(await acceptanceFlag(ctx, node, 'wrong-tree')).toMatchObject({
      flag: {
        rule: 'acceptance-test-failed',
        message: expect.stringContaining('Cannot find module') as unknown,
      },
      failure: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
    });
    expect(await acceptanceFlag(ctx, node, 'code-tree')).toBeUndefined();
  });

  it('discards a test that passes without the code, and settles on no test when the voters find none', async () => {
    const vacuous = setUp(() => ({
      test: {
        ...VACUOUS,
        path: 'test/vacuous.test.js',
        command: 'node --test test/vacuous.test.js',
      },
    }));
    vacuous.node.files.push('test/vacuous.test.js');
    await voteAcceptanceTest(vacuous.ctx, vacuous.node, 'base');
    expect(vacuous.node.acceptanceTest?.status).toBe('discarded');
    expect(await acceptanceFlag(vacuous.ctx, vacuous.node, 'wrong-tree')).toBeUndefined();
    const none = setUp(() => ({ test: null, reason: 'nothing to test' }));
    await voteAcceptanceTest(none.ctx, none.node, 'base');
    expect(none.node.acceptanceTest?.status).toBe('none');
  });

  it('asks nothing with checks off, and nothing again once settled', async () => {
    const off = setUp(() => ({ test: RIGHT }), false);
    await voteAcceptanceTest(off.ctx, off.node, 'base');
    expect(off.asked).toEqual([]);
    expect(off.node.acceptanceTest).toBeUndefined();
    const on = setUp(() => ({ test: RIGHT }));
    await voteAcceptanceTest(on.ctx, on.node, 'base');
    const asked = on.asked.length;
    await voteAcceptanceTest(on.ctx, on.node, 'base');
    expect(on.asked).toHaveLength(asked);
  });

  it('drops a kept test that every candidate failed, and starts the code vote over', async () => {
    const { ctx, node } = setUp(() => ({ test: RIGHT }));
    await voteAcceptanceTest(ctx, node, 'base');
    const failed = { rule: 'acceptance-test-failed', message: 'failed' };
    const record = {
      attempt: 0,
      draws: [0, 1, 2].map((slot) => ({ slot, status: 'flagged' as const, flags: [failed] })),
      ballots: [],
    };
    expect(await dropFailingTest(ctx, node, record)).toBe(true);
    expect(node.acceptanceTest?.status).toBe('dropped');
    expect(record).toMatchObject({ attempt: 1, draws: [], retired: { samples: 3, flagged: 3 } });
    // Dropped, it no longer flags anything, and is not dropped twice.
    expect(await acceptanceFlag(ctx, node, 'wrong-tree')).toBeUndefined();
    expect(await dropFailingTest(ctx, node, record)).toBe(false);
  });

  it('keeps a test every candidate failed when its vote, widened by their doubt, settled on it', async () => {
    const { ctx, node } = setUp(() => ({ test: RIGHT }));
    await voteAcceptanceTest(ctx, node, 'base');
    const failed = { rule: 'acceptance-test-failed', message: 'failed' };
    const record = () => ({
      attempt: 0,
      draws: [0, 1, 2].map((slot) => ({ slot, status: 'flagged' as const, flags: [failed] })),
      ballots: [],
    });
    // One wrong answer drawn three times fails a right test three times: the wider vote weighed it.
    node.acceptanceTest!.doubted = { from: 2, settled: true, changed: false };
    expect(node.acceptanceTest?.vote.outcome?.status).toBe('decided');
    expect(await dropFailingTest(ctx, node, record())).toBe(false);
    expect(node.acceptanceTest?.status).toBe('kept');
    // A doubt whose wider vote did not settle (the candidates chose) leaves the rule as it was.
    node.acceptanceTest!.vote.outcome = {
      ...node.acceptanceTest!.vote.outcome!,
      status: 'undecided',
    };
    expect(await dropFailingTest(ctx, node, record())).toBe(true);
    expect(node.acceptanceTest?.status).toBe('dropped');
  });
});
