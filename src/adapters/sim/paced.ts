import { abortableSleep } from '../../core/sleep.js';
import type { Planner } from '../../ports/planner.js';
import type { Worker } from '../../ports/worker.js';

/**
 * A planner whose every call first waits `ms`: a simulated run slow enough for a person (or a
 * browser test) to watch it move. Answers are the inner planner's, unchanged.
 */
export function pacedPlanner(inner: Planner, ms: number): Planner {
  const proposeTest = inner.proposeTest?.bind(inner);
  const proposeProbe = inner.proposeProbe?.bind(inner);
  return {
    id: inner.id,
    isMinimal: async (context, call) => {
      await abortableSleep(ms, call.signal);
      return inner.isMinimal(context, call);
    },
    proposeSplit: async (context, call) => {
      await abortableSleep(ms, call.signal);
      return inner.proposeSplit(context, call);
    },
    castBallot: async (context, question, options, call) => {
      await abortableSleep(ms, call.signal);
      return inner.castBallot(context, question, options, call);
    },
    reviewCandidate: async (context, candidate, call) => {
      await abortableSleep(ms, call.signal);
      return inner.reviewCandidate(context, candidate, call);
    },
    ...(proposeTest === undefined
      ? {}
      : {
          proposeTest: async (context, call) => {
            await abortableSleep(ms, call.signal);
            return proposeTest(context, call);
          },
        }),
    ...(proposeProbe === undefined
      ? {}
      : {
          proposeProbe: async (context, call) => {
            await abortableSleep(ms, call.signal);
            return proposeProbe(context, call);
          },
        }),
  };
}

/** A worker whose every candidate first waits `ms` (see {@link pacedPlanner}). */
export function pacedWorker(inner: Worker, ms: number): Worker {
  return {
    id: inner.id,
    ...(inner.prepare === undefined
      ? {}
      : { prepare: (task, signal) => inner.prepare?.(task, signal) ?? Promise.resolve() }),
    run: async (task, slot, signal, hooks) => {
      await abortableSleep(ms, signal);
      return inner.run(task, slot, signal, hooks);
    },
  };
}
