import type { ModelResponse } from '../../core/red-flags/index.js';
import type { SamplingRole } from '../../core/sampling.js';
import type { TreeNode } from '../../core/tree/schema.js';
import type { NodeContext, NodePlanner, PlannerCall } from '../../ports/planner.js';
import { counted, type CostRole } from '../run/cost.js';
import type { RunContext } from '../run/run-context.js';
import { plannerSampling } from './sampling.js';

/**
 * The planner of `ctx` bound to node `n`, asking about `context` (the node's own, or an
 * integration's): slots are numbered from `slotBase` (a vote's attempt × 1000, say), each call
 * carries its role's sampling and the run's signal, and is counted against `n` under its cost role.
 */
export function plannerFor(
  ctx: Pick<RunContext, 'planner' | 'run' | 'signal'>,
  n: TreeNode,
  context: NodeContext,
  slotBase = 0,
): NodePlanner {
  const { planner } = ctx;
  /** One call of `sampling`'s role, counted as `cost`. */
  const call = (
    sampling: SamplingRole,
    cost: CostRole,
    slot: number,
    send: (call: PlannerCall) => Promise<ModelResponse>,
  ): Promise<ModelResponse> =>
    counted(
      n,
      send({ slot: slotBase + slot, ...plannerSampling(ctx, sampling), signal: ctx.signal }),
      cost,
    );
  const proposeTest = planner.proposeTest?.bind(planner);
  const proposeProbe = planner.proposeProbe?.bind(planner);
  return {
    isMinimal: (slot) => call('minimal', 'minimal', slot, (c) => planner.isMinimal(context, c)),
    proposeSplit: (slot) => call('split', 'split', slot, (c) => planner.proposeSplit(context, c)),
    castBallot: (question, options, slot) =>
      call('ballot', 'ballot', slot, (c) => planner.castBallot(context, question, options, c)),
    reviewCandidate: (candidate, slot) =>
      call('review', 'review', slot, (c) => planner.reviewCandidate(context, candidate, c)),
    // Tests and probes are written with the worker's sampling, and cost apart.
    proposeTest:
      proposeTest === undefined
        ? undefined
        : (slot) => call('worker', 'test', slot, (c) => proposeTest(context, c)),
    proposeProbe:
      proposeProbe === undefined
        ? undefined
        : (slot) => call('worker', 'probe', slot, (c) => proposeProbe(context, c)),
  };
}
