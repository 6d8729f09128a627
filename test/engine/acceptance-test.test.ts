import { describe, expect, it } from 'vitest';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import type { EngineEvent } from '../../src/engine/events.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import { renderNode } from '../../src/core/view/summary.js';
import type { Planner } from '../../src/ports/planner.js';
import type { Worker } from '../../src/ports/worker.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { baseConfig } from '../helpers/engine.js';
import { useTempDirs } from '../helpers/tmp.js';
import { machineSandbox, workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
const sandbox = await machineSandbox();

/** The plan's own check: it only loads the module, so a wrong `add` passes it. */
const WEAK_CHECK = `node -e "import('./add.mjs')"`;
const RIGHT = 'export function add(a, b) {\n  return a + b;\n}\n';
/** The subtly wrong answer, written identically every time it is given: its samples vote together. */
const WRONG = 'export function add(a, b) {\n  return a - b;\n}\n';
/** Slots (of the candidate vote) the worker answers wrongly: the majority of the first four. */
const WRONG_SLOTS = new Set([0, 1, 3]);

const RIGHT_TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { add } from './add.mjs';

test('add sums its arguments', () => {
  assert.equal(add(2, 3), 5);
});
`;
/** A test of nothing: it passes on the tree without the code, so it proves nothing. */
const VACUOUS_TEST = `import { test } from 'node:test';

test('add is planned', () => {});
`;

/** A test that shares the wrong answer's misconception: it passes `a - b` and fails the right code. */
const MISCONCEIVED_TEST = RIGHT_TEST.replace('add(2, 3), 5', 'add(2, 3), -1');
/** The right answer written two other ways: they behave as {@link RIGHT} does. */
const RIGHT_OTHERWISE = [
  'export function add(a, b) {\n  const sum = b + a;\n  return sum;\n}\n',
  'export const add = (a, b) => [a, b].reduce((x, y) => x + y, 0);\n',
];
const RIGHTS = [RIGHT, ...RIGHT_OTHERWISE];

/** A scripted planner: reviews pass, judges pick A, and every test it writes is `test`. */
function planner(test: string, asked: number[]): Planner {
  const reply = (value: unknown) =>
    Promise.resolve({ text: JSON.stringify(value), finishReason: 'stop' as const });
  return {
    id: 'scripted',
    isMinimal: () => reply({ minimal: true, reason: '' }),
    proposeSplit: () => reply({ subtasks: [] }),
    castBallot: () => reply({ choice: 'A', reason: '' }),
    reviewCandidate: () => reply({ verdict: 'ok', confidence: 0.9, reason: '' }),
    proposeTest: (context, call) => {
      asked.push(call.slot);
      // Written from the task alone: the context it gets holds no candidate.
      expect(JSON.stringify(context.task)).not.toContain('return a');
      return reply({
        test: { path: 'add.test.mjs', content: test, command: 'node --test add.test.mjs' },
        reason: 'add(2, 3) is 5',
      });
    },
  };
}

/** A scripted worker: the content of `add.mjs` for each slot of a vote (the same in every attempt). */
const workerOf = (answer: (slot: number) => string): Worker => ({
  id: 'scripted',
  run: (_task, slot) =>
    Promise.resolve({
      ok: true,
      edits: [{ path: 'add.mjs', content: answer(slot % 1000) }],
      summary: 'Add add()',
    }),
});

const worker = workerOf((slot) => (WRONG_SLOTS.has(slot) ? WRONG : RIGHT));

async function run(
  test: string,
  options: {
    stopWhen?: (e: EngineEvent) => boolean;
    runChecks?: boolean;
    worker?: Worker;
  } = {},
) {
  const dir = await tempDir();
  const workspace = await openWorkspace(dir, true, workspaceSettings({}));
  const asked: number[] = [];
  try {
    const engineOf = () =>
      new MakerEngine({
        workspace,
        roles: { planner: planner(test, asked), worker: options.worker ?? worker },
        store: makerStateFile(dir),
      });
    const engine = engineOf();
    const runId = await engine.create(
      'an ES module add.mjs exporting add(a, b), the sum of a and b',
      { ...baseConfig, runChecks: options.runChecks ?? true, maxDepth: 0, install: '' },
      { check: WEAK_CHECK },
    );
    const events: EngineEvent[] = [];
    const listening = new AbortController();
    const stop = new AbortController();
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
    const askedBefore = asked.length;
    if (options.stopWhen !== undefined) {
      const again = engineOf();
      listened.push(listen(again));
      outcome = await again.run(runId);
    }
    listening.abort();
    await Promise.all(listened);
    const state = await engineOf().getRun(runId);
    const root = state.nodes[state.rootId];
    const landed =
      root?.commit === undefined ? [] : await workspace.readFiles(root.commit, ['add.mjs']);
    return { outcome, interrupted, askedBefore, asked, state, events, add: landed[0]?.content };
  } finally {
    await workspace.close();
  }
}

describe.skipIf(sandbox === undefined)(
  'acceptance tests voted from the criteria (issue #36)',
  () => {
    it('a subtly wrong majority passes the weak planned check but fails the voted test, so the right answer wins', async () => {
      // Stopped between the test vote and the code vote (as by a kill), resumed by a new engine.
      const stopped = await run(RIGHT_TEST, {
        stopWhen: (e) => e.type === 'vote-end' && e.vote === 'acceptance-test',
      });
      const { outcome, state, events, add } = stopped;
      expect(outcome.status).toBe('done');
      // Without the acceptance test the wrong answer wins 3 : 1 (as on main).
      expect(add).toBe(RIGHT);
      const root = state.nodes['root']!;
      expect(root.acceptanceTest?.status).toBe('kept');
      expect(root.acceptanceTest?.base?.ok).toBe(false);
      const failed = (root.leaf?.draws ?? []).filter((d) =>
        d.flags.some((f) => f.rule === 'acceptance-test-failed'),
      );
      expect(failed.map((d) => d.slot)).toEqual([0, 1, 3]);
      expect(failed[0]?.flags[0]?.message).toMatch(/node --test add\.test\.mjs.*failed/s);
      // The plan and status say what each check proves.
      const said = renderNode(state, 'root') ?? '';
      expect(said).toContain(`planned check \`${WEAK_CHECK}\`: loads a module`);
      expect(said).toMatch(
        /Acceptance test add\.test\.mjs .*voted from the criteria, fails without the code/,
      );
      expect(events.some((e) => e.type === 'acceptance-test' && e.status === 'kept')).toBe(true);
      // The resumed run asked no test again (the vote was saved): its only asks are the slots the
      // wrong candidates' doubt added to the test's vote (widened to k = 4, the same test won).
      expect(stopped.interrupted).toBe('cancelled');
      expect(stopped.askedBefore).toBe(2);
      expect(stopped.asked).toEqual([0, 1, 2, 3]);
      expect(root.acceptanceTest?.doubted).toMatchObject({ changed: false });
    }, 60_000);

    it('discards a voted test that passes without the code, and says so', async () => {
      const { outcome, state, add } = await run(VACUOUS_TEST);
      expect(outcome.status).toBe('done');
      const root = state.nodes['root']!;
      expect(root.acceptanceTest?.status).toBe('discarded');
      expect(root.acceptanceTest?.reason).toMatch(/passes without the code, so it proves nothing/);
      // The plan's own check decides alone: the wrong majority wins, as without a test.
      expect(add).toBe(WRONG);
      expect(renderNode(state, 'root')).toContain('discarded');
    }, 60_000);

    it('a test that shares the misconception is contested when right candidates in k more texts fail it alike than pass it', async () => {
      // Every test sample is the misconceived one, so it wins its vote; one code sample shares the
      // misconception, the others are right in three texts. On main the misconception landed: the
      // only candidate the test let through, chosen by --hitl auto.
      const { outcome, state, add, events } = await run(MISCONCEIVED_TEST, {
        worker: workerOf((slot) => (slot === 0 ? WRONG : (RIGHTS[(slot - 1) % 3] as string))),
      });
      expect(outcome.status).toBe('done');
      expect(RIGHTS).toContain(add);
      const root = state.nodes['root']!;
      expect(root.acceptanceTest?.status).toBe('contested');
      expect(root.acceptanceTest?.reason).toMatch(
        /candidates in 3 different texts that pass the planned check fail it the same way, against 1 text that pass/,
      );
      // No more were drawn after the batch in which three texts agreed (without the stop, the
      // vote draws to its cap of 8): the first attempt's five draws were retired.
      expect(root.leaf?.attempt).toBe(1);
      expect(root.leaf?.retired?.samples).toBe(5);
      // Voted again by how they fare under the test: the right texts pooled against the wrong one.
      const classes = root.leaf?.outcome?.classes ?? [];
      const winner = classes.find((c) => c.key === root.leaf?.outcome?.key);
      const texts = new Set(
        (root.leaf?.draws ?? [])
          .filter((d) => winner?.slots.includes(d.slot))
          .map((d) => d.behaviour?.text),
      );
      expect(texts.size).toBeGreaterThan(1);
      expect(root.leaf?.outcome?.status).toBe('decided');
      // The contested test is not committed with the result.
      expect(root.acceptanceTest?.committed).toBeUndefined();
      expect(events.some((e) => e.type === 'acceptance-test' && e.status === 'contested')).toBe(
        true,
      );
      expect(renderNode(state, 'root')).toContain('Acceptance test contested');
    }, 60_000);

    it('a right test stands against one wrong answer repeated word for word, however often', async () => {
      // Four identical wrong samples fail the right test alike before the first right one: one text.
      const { outcome, state, add } = await run(RIGHT_TEST, {
        worker: workerOf((slot) => (slot < 4 ? WRONG : RIGHT)),
      });
      expect(outcome.status).toBe('done');
      expect(add).toBe(RIGHT);
      expect(state.nodes['root']?.acceptanceTest?.status).toBe('kept');
    }, 60_000);

    it('a right test stands when the candidates that fail it fail it in different ways', async () => {
      // Four wrong answers, each wrong its own way, against one right: none agree, nothing contests.
      const wrongs = [1, 2, 3, 4].map((d) => RIGHT.replace('a + b', `a + b + ${d}`));
      const { outcome, state, add } = await run(RIGHT_TEST, {
        worker: workerOf((slot) => (slot === 0 ? RIGHT : (wrongs[(slot - 1) % 4] as string))),
      });
      expect(outcome.status).toBe('done');
      expect(add).toBe(RIGHT);
      expect(state.nodes['root']?.acceptanceTest?.status).toBe('kept');
    }, 60_000);

    it('asks for no test with --no-checks', async () => {
      const { asked, state } = await run(RIGHT_TEST, { runChecks: false });
      expect(asked).toEqual([]);
      expect(state.nodes['root']?.acceptanceTest).toBeUndefined();
    }, 60_000);
  },
);
