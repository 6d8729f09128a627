import { describe, expect, it } from 'vitest';
import { FLAWLESS, SimWorker } from '../../src/adapters/sim/project-sim.js';
import type { RunConfig } from '../../src/core/tree/schema.js';
import type { Worker } from '../../src/ports/worker.js';
import { baseConfig, memoryEngine as engineWith } from '../helpers/engine.js';

const config = (overrides: Partial<RunConfig>): RunConfig => ({ ...baseConfig, ...overrides });

describe('a run that cannot go on', () => {
  it('under --hitl auto, stops when every candidate is red-flagged instead of resampling forever', async () => {
    let runs = 0;
    const worker: Worker = {
      id: 'always-fails',
      run: () => {
        // A guard for the old behaviour: without it the test would never end.
        if (++runs > 200) throw new Error('runaway: still resampling after 200 worker runs');
        return Promise.resolve({ ok: false, reason: 'the session FAILED' });
      },
    };
    const engine = engineWith(worker);
    const runId = await engine.create('a tool', config({ hitl: 'auto', maxDepth: 0 }));
    const outcome = await engine.run(runId);
    expect(outcome.status).toBe('failed');
    expect(outcome.error).not.toMatch(/runaway/);
    expect(outcome.error).toMatch(/red-flagged/);
    // The question stays for a person: `maker answer`, then `maker resume`.
    expect(outcome.pending.map((q) => q.id)).toEqual(['q-root-patch-1']);
    expect(runs).toBeLessThanOrEqual(3 * baseConfig.maxCandidates);
  });

  /**
   * A worker for the sim tree of seed 7 (root → 0, 1 after 0, 2): node 2's service fails (an
   * error, not a candidate); node 0's candidate asks its person a question once that failure is
   * in, and waits for the answer; the rest is the sim worker.
   */
  function failingService() {
    const sim = new SimWorker({ seed: 7, ...FLAWLESS });
    let failed!: () => void;
    const failure = new Promise<void>((resolve) => (failed = resolve));
    const worker: Worker = {
      id: 'flaky-service',
      run: async (task, slot, _signal, hooks) => {
        if (task.context.nodeId === '2') {
          failed();
          throw new Error('the service refused the key');
        }
        if (task.context.nodeId === '0' && slot === 0) {
          await failure;
          // Node 2's failure has gone all the way up its subtree by now.
          for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
          await hooks?.ask?.('Which format?');
        }
        return sim.run(task, slot);
      },
    };
    return worker;
  }

  it('under --hitl defer, reports the failure of one subtree, not only the question of another', async () => {
    const engine = engineWith(failingService());
    const runId = await engine.create('a tool', config({ hitl: 'defer' }));
    const outcome = await engine.run(runId);
    expect(outcome.error).toMatch(/the service refused the key/);
    expect(outcome.status).toBe('failed');
  });

  it('under --hitl tty (wait), stops at the failure of one subtree without waiting for an answer elsewhere', async () => {
    const engine = engineWith(failingService());
    const runId = await engine.create('a tool', config({ hitl: 'wait' }));
    const outcome = await engine.run(runId);
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(/the service refused the key/);
    // The question stays, for the resumed run.
    expect(outcome.pending.map((q) => q.kind)).toEqual(['clarify']);
  }, 15_000);
  it('starts no more sessions of a worker that limits itself once another subtree failed', async () => {
    const sim = new SimWorker({ seed: 7, ...FLAWLESS });
    let failed!: () => void;
    const failure = new Promise<void>((resolve) => (failed = resolve));
    let runsOf0 = 0;
    // A worker that bounds its own sessions (as Jules does), outside the run's paid slots.
    const worker: Worker = {
      id: 'sessions',
      limitsItself: true,
      run: async (task, slot) => {
        if (task.context.nodeId === '2') {
          failed();
          throw new Error('the service refused the key');
        }
        if (task.context.nodeId !== '0') return sim.run(task, slot);
        runsOf0 += 1;
        await failure;
        for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
        // Red-flagged: the vote would draw more.
        return { ok: false, reason: 'the session FAILED' };
      },
    };
    const engine = engineWith(worker);
    const runId = await engine.create('a tool', config({ hitl: 'defer' }));
    const outcome = await engine.run(runId);
    expect(outcome.error).toMatch(/the service refused the key/);
    // The first batch (2k − 1) was under way; no session was started after the failure.
    expect(runsOf0).toBe(3);
  });
});

describe('the node bound', () => {
  it('does not offer to split a subtask further when the tree is at its node bound', async () => {
    const sim = new SimWorker({ seed: 7, ...FLAWLESS });
    const worker: Worker = {
      id: 'fails-on-0',
      run: (task, slot) =>
        task.context.nodeId === '0'
          ? Promise.resolve({ ok: false, reason: 'the session FAILED' })
          : sim.run(task, slot),
    };
    const engine = engineWith(worker, 1);
    // The root and its three subtasks fill the tree: no subtask can be split.
    const runId = await engine.create(
      'a tool',
      config({ hitl: 'defer', maxDepth: 2, maxNodes: 4 }),
    );
    const outcome = await engine.run(runId);
    expect(outcome.status).toBe('awaiting-human');
    const question = outcome.pending.find((q) => q.nodeId === '0');
    expect(question?.options.map((o) => o.id)).toEqual(['veto-resample']);
  });
});
