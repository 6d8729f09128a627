import { describe, expect, it } from 'vitest';
import { FLAWLESS, SimWorker } from '../../src/adapters/sim/project-sim.js';
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
