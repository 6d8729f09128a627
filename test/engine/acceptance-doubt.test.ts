import { describe, expect, it } from 'vitest';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import type { ModelResponse } from '../../src/core/red-flags/index.js';
import type { Question, Subtask } from '../../src/core/tree/schema.js';
import type { StateFile } from '../../src/core/tree/schema.js';
import type { EngineEvent } from '../../src/engine/events.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import { renderNode } from '../../src/core/view/summary.js';
import type { NodeContext, Planner } from '../../src/ports/planner.js';
import type { Worker } from '../../src/ports/worker.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { baseConfig } from '../helpers/engine.js';
import { useTempDirs } from '../helpers/tmp.js';
import { machineSandbox, workspaceSettings } from '../helpers/settings.js';

/**
 * Issue #36: an acceptance test the code doubts, and a leaf whose files hold no test file.
 * A wrong test can win its own vote 2 : 0 (a misconception repeats word for word); a candidate
 * that passes everything else and fails the test widens the test's vote, and where the wider vote
 * does not settle, the candidates choose between its two leading tests (CodeT's dual agreement).
 */

const tempDir = useTempDirs();
const sandbox = await machineSandbox();

const WEAK_CHECK = `node -e "import('./add.mjs')"`;
const RIGHT = 'export function add(a, b) {\n  return a + b;\n}\n';
const RIGHT_OTHERWISE = 'export const add = (a, b) => [a, b].reduce((x, y) => x + y, 0);\n';
/** The misconception, written identically every time: its samples vote together. */
const WRONG = 'export function add(a, b) {\n  return a - b;\n}\n';

const testOf = (expected: number) => `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { add } from './add.mjs';

test('add sums its arguments', () => {
  assert.equal(add(2, 3), ${expected});
});
`;
const RIGHT_TEST = testOf(5);
/** A test of nothing: it passes on the tree without the code. */
const VACUOUS_TEST = "import { test } from 'node:test';\n\ntest('add is planned', () => {});\n";
/** A test that shares the misconception: it passes `a - b` and fails the right code. */
const MISCONCEIVED_TEST = testOf(-1);

const reply = (value: unknown): Promise<ModelResponse> =>
  Promise.resolve({ text: JSON.stringify(value), finishReason: 'stop', outputTokens: 10 });

interface Script {
  /** The test the test role writes for `node` in `slot` (null: none). */
  readonly test: (
    node: string,
    slot: number,
  ) => { path: string; content: string; command: string } | null;
  /** The root's plan: none (the root is the leaf) or its subtasks. */
  readonly plan?: Subtask[];
}

function plannerOf(script: Script, asked: { node: string; slot: number }[]): Planner {
  return {
    id: 'scripted',
    isMinimal: (c) =>
      reply({ minimal: script.plan === undefined || c.nodeId !== 'root', reason: '' }),
    proposeSplit: () => reply({ subtasks: script.plan ?? [], ambiguity: null }),
    castBallot: () => reply({ choice: 'A', reason: '' }),
    reviewCandidate: () => reply({ verdict: 'ok', confidence: 0.9, reason: '' }),
    proposeTest: (c: NodeContext, call) => {
      asked.push({ node: c.nodeId, slot: call.slot });
      const test = script.test(c.nodeId, call.slot);
      return reply({ test, reason: 'what the criteria say' });
    },
  };
}

async function run(
  script: Script,
  worker: Worker,
  options: {
    stopWhen?: (e: EngineEvent) => boolean;
    /** Stops the first engine once a save of the state file matches (it is on disk by then). */
    stopOnSave?: (saved: StateFile) => boolean;
    /** A person's answers (`--hitl defer`, then resumed): the option id for a question, or accept. */
    answer?: (q: Question) => string | undefined;
  } = {},
) {
  const dir = await tempDir();
  const workspace = await openWorkspace(dir, true, workspaceSettings({}));
  const asked: { node: string; slot: number }[] = [];
  try {
    const stop = new AbortController();
    const engineOf = (first = false) => {
      const store = makerStateFile(dir);
      const stopOnSave = options.stopOnSave;
      if (first && stopOnSave !== undefined) {
        const save = store.save.bind(store);
        store.save = async (saved, changed) => {
          await save(saved, changed);
          if (stopOnSave(saved)) stop.abort();
        };
      }
      return new MakerEngine({
        workspace,
        roles: { planner: plannerOf(script, asked), worker },
        store,
      });
    };
    const engine = engineOf(true);
    const runId = await engine.create(
      'an ES module add.mjs exporting add(a, b), the sum of a and b',
      {
        ...baseConfig,
        runChecks: true,
        maxDepth: script.plan === undefined ? 0 : 1,
        install: '',
        ...(options.answer === undefined ? {} : { hitl: 'defer' as const }),
      },
      script.plan === undefined ? { check: WEAK_CHECK } : {},
    );
    const events: EngineEvent[] = [];
    const listening = new AbortController();
    const listen = (from: MakerEngine) =>
      (async () => {
        for await (const e of from.events(listening.signal)) {
          events.push(e);
          if (options.stopWhen?.(e) === true) stop.abort();
        }
      })().catch(() => undefined);
    const listened = [listen(engine)];
    let outcome = await engine.run(runId, { signal: stop.signal });
    const interrupted = outcome.status;
    const atStop =
      options.stopWhen === undefined && options.stopOnSave === undefined
        ? undefined
        : await engineOf().getRun(runId);
    if (atStop !== undefined) {
      const again = engineOf();
      listened.push(listen(again));
      outcome = await again.run(runId);
    }
    // A person answers each question the run stopped at, then the run is resumed.
    for (
      let turn = 0;
      options.answer !== undefined && outcome.status === 'awaiting-human';
      turn++
    ) {
      expect(turn).toBeLessThan(5);
      const again = engineOf();
      const pending = (await again.getRun(runId)).questions.filter((q) => q.answer === undefined);
      for (const q of pending) await again.answer(runId, q.id, options.answer(q) ?? 'accept');
      listened.push(listen(again));
      outcome = await again.run(runId);
    }
    listening.abort();
    await Promise.all(listened);
    const state = await engineOf().getRun(runId);
    const root = state.nodes[state.rootId];
    const landed =
      root?.commit === undefined
        ? []
        : await workspace.readFiles(root.commit, ['add.mjs', 'add.criteria.test.mjs']);
    return {
      outcome,
      interrupted,
      atStop,
      asked,
      state,
      events,
      add: landed[0]?.content,
      criteria: landed[1]?.content,
    };
  } finally {
    await workspace.close();
  }
}

const at = (content: string, path = 'add.test.mjs') => ({
  path,
  content,
  command: `node --test ${path}`,
});

/**
 * The doubt's scene: the first two test samples share the misconception (2 : 0, kept); later ones
 * alternate, right first, so the wider vote (k = 4) never settles: 9 misconceived against 7 right.
 */
const doubtedTests: Script = {
  test: (_node, slot) => at(slot < 2 || slot % 2 === 1 ? MISCONCEIVED_TEST : RIGHT_TEST),
};
/** Two right candidates in two texts fail the misconceived test; three identical wrong ones pass it. */
const doubtingCode: Worker = {
  id: 'scripted',
  run: (_task, slot) => {
    const s = slot % 1000;
    const content = s === 0 ? RIGHT : s === 1 ? RIGHT_OTHERWISE : s < 5 ? WRONG : RIGHT;
    return Promise.resolve({ ok: true, edits: [{ path: 'add.mjs', content }], summary: 'add' });
  },
};

/**
 * A coin: the test vote does not settle before any code (8 misconceived : 7 right : 1 of nothing),
 * and the first candidates back neither test; drawn again under the one --hitl auto takes, the
 * right code comes in two texts and the wrong one in one.
 */
const coinTests: Script = {
  test: (_node, slot) =>
    at(slot === 15 ? VACUOUS_TEST : slot % 2 === 0 ? MISCONCEIVED_TEST : RIGHT_TEST),
};
const laterTexts: Worker = {
  id: 'scripted',
  run: (_task, slot) => {
    const [attempt, s] = [Math.floor(slot / 1000), slot % 1000];
    const content =
      attempt === 0
        ? s === 0
          ? RIGHT
          : WRONG
        : s === 1
          ? RIGHT_OTHERWISE
          : s === 0 || s >= 5
            ? RIGHT
            : WRONG;
    return Promise.resolve({ ok: true, edits: [{ path: 'add.mjs', content }], summary: 'add' });
  },
};

describe.skipIf(sandbox === undefined)('an acceptance test the code doubts (issue #36)', () => {
  it('widens the test vote when a candidate fails it alone; the candidates choose the right test, and the right code lands', async () => {
    const { outcome, state, add, events } = await run(doubtedTests, doubtingCode);
    expect(outcome.status).toBe('done');
    // Without the doubt, the misconceived test stood and the wrong code won 3 : 0.
    expect([RIGHT, RIGHT_OTHERWISE]).toContain(add);
    const root = state.nodes['root']!;
    const test = root.acceptanceTest!;
    expect(test.status).toBe('kept');
    expect(test.vote.k).toBe(4);
    expect(test.vote.outcome?.status).toBe('undecided');
    expect(test.doubted).toMatchObject({ from: 2, settled: true, changed: true });
    // The misconceived test: 9 votes, passed by one text; the right test: 7, passed by two.
    expect(test.agreement?.map(({ votes, passing }) => [votes, passing])).toEqual([
      [9, 1],
      [7, 2],
    ]);
    expect(test.reason).toMatch(
      /candidates agree most with this one \(7 votes × 2 texts passing against 9 votes × 1 text passing\)/,
    );
    expect(JSON.stringify(test.vote.outcome?.key)).toContain('5)');
    // The code's vote started again under the right test: its first attempt's draws were retired.
    expect(root.leaf?.attempt).toBe(1);
    expect(
      events.some((e) => e.type === 'vote-k-raised' && e.vote === 'acceptance-test' && e.to === 4),
    ).toBe(true);
    const said = renderNode(state, 'root') ?? '';
    expect(said).toContain('candidates agree most with this one');
    expect(said).toContain(
      'k raised 2 → 4: the code doubted it: 2 candidates that pass the planned check fail it',
    );
  }, 90_000);

  it('a test that passes without the code is no rival: the candidates choose among tests that fail there', async () => {
    // After the misconceived 2 : 0, a test of nothing and the right test alternate: 7 : 7 : 2 at
    // the cap. Every candidate passes the test of nothing; on main it would have been chosen, then
    // discarded on the tree without the code, and the wrong code would have won by its text.
    const { outcome, state, add } = await run(
      {
        test: (_node, slot) =>
          at(slot < 2 ? MISCONCEIVED_TEST : slot % 2 === 0 ? VACUOUS_TEST : RIGHT_TEST),
      },
      doubtingCode,
    );
    expect(outcome.status).toBe('done');
    expect([RIGHT, RIGHT_OTHERWISE]).toContain(add);
    const test = state.nodes['root']!.acceptanceTest!;
    expect(test.status).toBe('kept');
    expect(test.agreement?.map(({ votes, passing }) => [votes, passing])).toEqual([
      [7, 2],
      [2, 1],
    ]);
  }, 90_000);

  it('a test vote that does not settle before any code is drawn is settled by the candidates once they are', async () => {
    // The misconceived and the right test alternate: 8 : 8 at the cap, before any candidate. The
    // code's vote runs on the planned check alone (the wrong answer wins 3 : 0 by agreement), then
    // its candidates choose the right test, and are drawn again under it.
    const { outcome, state, add, events } = await run(
      { test: (_node, slot) => at(slot % 2 === 0 ? MISCONCEIVED_TEST : RIGHT_TEST) },
      doubtingCode,
    );
    expect(outcome.status).toBe('done');
    expect([RIGHT, RIGHT_OTHERWISE]).toContain(add);
    const root = state.nodes['root']!;
    const test = root.acceptanceTest!;
    expect(test.status).toBe('kept');
    expect(test.deferred).toBe(false);
    expect(test.doubted).toBeUndefined();
    expect(test.agreement?.map(({ votes, passing }) => [votes, passing])).toEqual([
      [8, 1],
      [8, 2],
    ]);
    expect(test.reason).toMatch(
      /its vote did not settle \(8 : 8\), and of its leading tests the candidates agree most with this one/,
    );
    expect(root.leaf?.attempt).toBe(1);
    // Said as it happened: first no test yet, then the one the candidates chose.
    const said = events.flatMap((e) => (e.type === 'acceptance-test' ? [e.status] : []));
    expect(said).toEqual(['none', 'kept']);
  }, 90_000);

  it('a person chooses the test when the candidates back neither: one text passes each', async () => {
    // The doubt's scene (the misconceived test kept 2 : 0, then 9 : 7 at k = 4, unsettled), but the
    // candidates are the right code in one text and the wrong one in one text: each test is passed
    // by one text, so only the test's unsettled votes favour the misconception. A person is asked
    // which test checks what they meant (before, the 9 votes chose it).
    const oneTextEach: Worker = {
      id: 'scripted',
      run: (_task, slot) => {
        const s = slot % 1000;
        const content = s === 0 || s >= 5 ? RIGHT : WRONG;
        return Promise.resolve({ ok: true, edits: [{ path: 'add.mjs', content }], summary: 'add' });
      },
    };
    const asked: Question[] = [];
    const { outcome, state, add } = await run(doubtedTests, oneTextEach, {
      answer: (q) => {
        asked.push(q);
        if (q.id !== 'q-root-acceptance-test') return undefined;
        // The option whose test expects add(2, 3) to be 5.
        return q.options.find((o) => (o.detail ?? '').includes('5)'))?.id;
      },
    });
    expect(outcome.status).toBe('done');
    expect(add).toBe(RIGHT);
    const question = asked.find((q) => q.id === 'q-root-acceptance-test');
    expect(question?.kind).toBe('select');
    expect(question?.prompt).toMatch(
      /candidates do not back one of its leading tests over the other \(9 votes × 1 text passing against 7 votes × 1 text passing\)/,
    );
    expect(question?.options.map((o) => o.id)).toEqual(['test-1', 'test-2', 'none']);
    expect(question?.context).toContain('Done when:');
    const test = state.nodes['root']!.acceptanceTest!;
    expect(test.status).toBe('kept');
    expect(test.reason).toMatch(/and a person chose this one/);
    expect(JSON.stringify(test.vote.outcome?.key)).toContain('5)');
    // Under --hitl auto the larger score is taken, as before: the misconceived test's 9 × 1.
    const auto = await run(doubtedTests, oneTextEach);
    const autoTest = auto.state.nodes['root']?.acceptanceTest;
    expect(autoTest?.status).toBe('kept');
    expect(autoTest?.reason).toMatch(/taken automatically \(--hitl auto/);
    expect(JSON.stringify(autoTest?.vote.outcome?.key)).toContain('-1)');
    expect(auto.state.questions.find((q) => q.id === 'q-root-acceptance-test')?.answer?.auto).toBe(
      true,
    );
  }, 120_000);

  it('a test --hitl auto took on a coin is chosen again by the candidates then drawn under it', async () => {
    // The test vote does not settle before any code (8 misconceived : 7 right : 1 of nothing, at
    // the cap). The first candidates are the right code and the wrong one, one text each: they back
    // neither test, and --hitl auto takes the misconceived one (8 × 1 against 7 × 1). Drawn again
    // under it, the right code comes in two texts that fail it alike and the wrong one in one that
    // passes it: one text short of contesting it (k = 2). Chosen again by the same rule, the right
    // test is backed 2 texts to 1; the code's vote starts again under it, and the right code lands.
    const { outcome, state, add, events } = await run(coinTests, laterTexts);
    expect(outcome.status).toBe('done');
    expect(add).toBe(RIGHT);
    const root = state.nodes['root']!;
    const test = root.acceptanceTest!;
    expect(state.questions.find((q) => q.id === 'q-root-acceptance-test')?.answer).toMatchObject({
      optionId: 'test-1',
      auto: true,
    });
    expect(test.agreement?.map(({ votes, passing }) => [votes, passing])).toEqual([
      [8, 1],
      [7, 1],
    ]);
    // Chosen again: the same tests, in the same order, now passed by the later candidates' texts.
    expect(test.revisited).toMatchObject({ settled: true });
    expect(test.revisited?.agreement.map(({ votes, passing }) => [votes, passing])).toEqual([
      [8, 1],
      [7, 2],
    ]);
    expect(test.status).toBe('kept');
    expect(JSON.stringify(test.vote.outcome?.key)).toContain('5)');
    expect(test.reason).toMatch(
      /--hitl auto took another; the candidates then drawn under that one back this one \(7 votes × 2 texts passing against 8 votes × 1 text passing\)/,
    );
    // Drawn three times: under no test, under the misconceived one, under the right one.
    expect(root.leaf?.attempt).toBe(2);
    const said = events.flatMap((e) => (e.type === 'acceptance-test' ? [e.status] : []));
    expect(said).toEqual(['none', 'kept', 'kept']);
    expect(renderNode(state, 'root') ?? '').toContain('the candidates then drawn under that one');
    // A person's choice is not revisited: answered for the misconceived test, it stands.
    const person = await run(coinTests, laterTexts, {
      answer: (q) =>
        q.id === 'q-root-acceptance-test'
          ? q.options.find((o) => (o.detail ?? '').includes('-1)'))?.id
          : undefined,
    });
    const theirs = person.state.nodes['root']!.acceptanceTest!;
    expect(theirs.revisited).toBeUndefined();
    expect(JSON.stringify(theirs.vote.outcome?.key)).toContain('-1)');
    expect(person.add).toBe(WRONG);
  }, 120_000);

  it("a kill between the revisit's saved choice and its switch resumes to the same switch", async () => {
    const { outcome, interrupted, atStop, state, add } = await run(coinTests, laterTexts, {
      stopOnSave: (saved) =>
        Object.values(saved.runs).some(
          (r) => r.nodes['root']?.acceptanceTest?.revisited?.agreement !== undefined,
        ),
    });
    expect(interrupted).toBe('cancelled');
    // Stopped after the candidates chose again and before the choice was acted on.
    const before = atStop?.nodes['root']?.acceptanceTest;
    expect(before?.revisited?.settled).toBeUndefined();
    expect(JSON.stringify(before?.vote.outcome?.key)).toContain('-1)');
    expect(outcome.status).toBe('done');
    expect(add).toBe(RIGHT);
    const test = state.nodes['root']!.acceptanceTest!;
    // The saved choice is the one acted on: the same texts back the same tests.
    expect(test.revisited).toEqual({ ...before!.revisited, settled: true });
    expect(JSON.stringify(test.vote.outcome?.key)).toContain('5)');
    expect(state.nodes['root']?.leaf?.attempt).toBe(2);
  }, 120_000);

  it('a kill during the widened test vote resumes to the same outcome, asking no test twice', async () => {
    const { outcome, interrupted, state, add, asked } = await run(doubtedTests, doubtingCode, {
      stopWhen: (e) => e.type === 'vote-k-raised' && e.vote === 'acceptance-test',
    });
    expect(interrupted).toBe('cancelled');
    expect(outcome.status).toBe('done');
    expect([RIGHT, RIGHT_OTHERWISE]).toContain(add);
    expect(state.nodes['root']?.acceptanceTest?.doubted?.changed).toBe(true);
    const slots = asked.map((a) => a.slot);
    expect(new Set(slots).size).toBe(slots.length);
  }, 90_000);

  it('a right test the code doubts stands, and the vote it judged stands with it', async () => {
    // Every test sample is right; a repeated wrong answer fails it: the wider vote settles 4 : 0.
    const { outcome, state, add } = await run(
      { test: () => at(RIGHT_TEST) },
      {
        id: 'scripted',
        run: (_task, slot) =>
          Promise.resolve({
            ok: true,
            edits: [{ path: 'add.mjs', content: slot % 1000 < 2 ? WRONG : RIGHT }],
            summary: 'add',
          }),
      },
    );
    expect(outcome.status).toBe('done');
    expect(add).toBe(RIGHT);
    const test = state.nodes['root']!.acceptanceTest!;
    expect(test.status).toBe('kept');
    expect(test.vote.outcome).toMatchObject({ status: 'decided', votes: 4 });
    expect(test.doubted).toMatchObject({ settled: true, changed: false });
    expect(test.agreement).toBeUndefined();
    // Not started again: the same attempt decided.
    expect(state.nodes['root']?.leaf?.attempt).toBe(0);
  }, 90_000);
});

/** The root split into its code and its test: the code half's files hold no test file. */
const codeAndTest: Subtask[] = [
  {
    title: 'Write add.mjs',
    description:
      'Write add.mjs exporting add(a, b), the sum of a and b. (The code only; its test is a separate subtask.)',
    acceptance: ['the module loads'],
    files: ['add.mjs'],
    dependsOn: [],
    check: WEAK_CHECK,
  },
  {
    title: 'Test add.mjs',
    description: 'Write add.test.mjs with node:test for add(a, b).',
    acceptance: ['the test passes'],
    files: ['add.test.mjs'],
    dependsOn: [0],
    check: 'node --test add.test.mjs',
  },
];

describe.skipIf(sandbox === undefined)('a leaf whose files hold no test file (issue #36)', () => {
  it('gets its acceptance test beside its files where no subtask writes, gated by it and not committed', async () => {
    const criteria = at(RIGHT_TEST, 'add.criteria.test.mjs');
    const {
      outcome,
      state,
      add,
      criteria: committed,
    } = await run(
      {
        plan: codeAndTest,
        // The code half's first sample puts its test at the path its sibling writes: a red flag.
        test: (node, slot) => (node === '0' ? (slot === 0 ? at(RIGHT_TEST) : criteria) : null),
      },
      {
        id: 'scripted',
        run: (task, slot) => {
          const s = slot % 1000;
          const edits =
            task.context.nodeId === '0'
              ? [{ path: 'add.mjs', content: s === 0 || s === 1 || s === 3 ? WRONG : RIGHT }]
              : [{ path: 'add.test.mjs', content: RIGHT_TEST }];
          return Promise.resolve({ ok: true, edits, summary: 'scripted' });
        },
      },
    );
    expect(outcome.status).toBe('done');
    // The wrong majority passed the weak check: the test beside the code flagged it.
    expect(add).toBe(RIGHT);
    const code = state.nodes['0']!.acceptanceTest!;
    expect(code.status).toBe('kept');
    expect(code.committed).toBe('gate');
    const [sibling] = code.vote.draws;
    expect(sibling?.status).toBe('flagged');
    expect(sibling?.flags.map((f) => f.rule)).toEqual(['out-of-scope']);
    // Not the leaf's to commit: the landed tree has no such file.
    expect(committed ?? null).toBeNull();
    expect(renderNode(state, '0')).toContain(
      "outside the subtask's files, none of which is a test file: it gates the candidates and is not committed",
    );
    // The test half has a test file of its own: it voted no test (the scripted planner wrote none).
    expect(state.nodes['1']?.acceptanceTest?.status).toBe('none');
  }, 120_000);
});
