import { describe, expect, it } from 'vitest';
import { FLAWLESS, SimWorker } from '../../src/adapters/sim/project-sim.js';
import { MemoryWorkspace } from '../../src/adapters/memory/memory-workspace.js';
import { SimPlanner } from '../../src/adapters/sim/project-sim.js';
import { STATE_SCHEMA_VERSION, type StateFile } from '../../src/core/tree/schema.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import type { Worker } from '../../src/ports/worker.js';
import { baseConfig, memoryEngine } from '../helpers/engine.js';

describe("a worker's questions", () => {
  it('asks each question a slot relays once, and answers each with its own answer', async () => {
    const sim = new SimWorker({ seed: 7, ...FLAWLESS });
    const relayed: { question: string; answer: string }[] = [];
    // A coding agent (a Jules session) that asks twice before it finishes: both questions go to
    // the person, each answer to its own question.
    const worker: Worker = {
      id: 'asking',
      run: async (task, slot, _signal, hooks) => {
        if (task.context.nodeId === 'root' && slot === 0)
          for (const question of ['Which format?', 'Which license?'])
            relayed.push({ question, answer: (await hooks?.ask?.(question)) ?? '' });
        return sim.run(task, slot);
      },
    };
    const engine = memoryEngine(worker, 0);
    const runId = await engine.create('a tool', { ...baseConfig, hitl: 'defer', maxDepth: 0 });
    const answers: Record<string, string> = { 'Which format?': 'CSV', 'Which license?': 'MIT' };
    let outcome = await engine.run(runId);
    for (let round = 0; outcome.status === 'awaiting-human' && round < 5; round++) {
      for (const q of outcome.pending)
        await engine.answer(runId, q.id, q.kind === 'veto' ? 'accept' : (answers[q.prompt] ?? 'x'));
      outcome = await engine.run(runId);
    }
    expect(outcome.status).toBe('done');
    const run = await engine.getRun(runId);
    expect(run.questions.filter((q) => q.kind === 'clarify').map((q) => q.prompt)).toEqual([
      'Which format?',
      'Which license?',
    ]);
    // The last attempt of the slot (resumed after each answer) got both answers right.
    expect(relayed.slice(-2)).toEqual([
      { question: 'Which format?', answer: 'CSV' },
      { question: 'Which license?', answer: 'MIT' },
    ]);
  });
});

describe('an answer whose save fails', () => {
  it('is not kept half-given: the person can answer again, and the waiting run gets it', async () => {
    let failNext = false;
    let saved: StateFile = { $schemaVersion: STATE_SCHEMA_VERSION, runs: {} };
    const engine = new MakerEngine({
      workspace: new MemoryWorkspace(),
      roles: {
        planner: new SimPlanner({ seed: 7, depth: 0, ...FLAWLESS }),
        worker: new SimWorker({ seed: 7, ...FLAWLESS }),
      },
      store: {
        path: '(memory)',
        load: () => Promise.resolve(structuredClone(saved)),
        save: (state) => {
          if (failNext) {
            failNext = false;
            return Promise.reject(new Error('ENOSPC: no space left on device'));
          }
          saved = structuredClone(state);
          return Promise.resolve();
        },
      },
    });
    const runId = await engine.create('a tool', { ...baseConfig, hitl: 'wait', maxDepth: 0 });
    const answered = (async () => {
      for await (const event of engine.events()) {
        if (event.type === 'question-asked') {
          failNext = true;
          await expect(engine.answer(runId, event.question.id, 'accept')).rejects.toThrow(/ENOSPC/);
          await engine.answer(runId, event.question.id, 'accept');
        }
        if (event.type === 'run-end') return;
      }
    })();
    const outcome = await engine.run(runId);
    engine.close();
    await answered;
    expect(outcome.status).toBe('done');
  });
});
