import { clip, LIMITS } from '../../core/limits.js';
import type { Draw, TreeNode } from '../../core/tree/schema.js';
import type { WorkerHooks } from '../../ports/worker.js';
import type { RunContext } from '../run/run-context.js';

/**
 * How a worker's run for `slot` of a vote talks back to the run: the ids it pays for (kept on the
 * draw and on the node, written before they are used), the questions it relays to a person (a
 * clarification, a choice of the worker's own), its session budget and the run's waits. `tag` is
 * the vote and its attempt (`patch-0`), which question ids carry.
 */
export function workerHooks(
  ctx: RunContext,
  n: TreeNode,
  tag: string,
  slot: number,
  started: Draw,
  resumed: boolean,
): WorkerHooks {
  return {
    ...(started.externalId === undefined ? {} : { externalId: started.externalId }),
    resumed,
    recordExternalId: async (id) => {
      started.externalId = id;
      // Kept on the node too: a resample or a split drops the draws, not what was bought.
      if (!(n.externalIds ?? []).includes(id)) n.externalIds = [...(n.externalIds ?? []), id];
      await ctx.save(n);
    },
    recordExtraId: async (id) => {
      if ((n.externalIds ?? []).includes(id)) return;
      n.externalIds = [...(n.externalIds ?? []), id];
      await ctx.save(n);
    },
    ask: async (question) => {
      const prompt = clip(question, LIMITS.workerQuestionChars);
      const answer = await ctx.ask(
        {
          id: workerQuestionId(ctx, `q-${n.id}-${tag}-worker-${slot}`, prompt),
          nodeId: n.id,
          kind: 'clarify',
          prompt,
          options: [],
          allowText: true,
          context: `The ${ctx.worker.id} worker asked this while working on "${n.title}".`,
        },
        { text: 'No preference: use your best judgement and keep to the subtask.' },
      );
      return answer.text ?? answer.optionId ?? '';
    },
    choose: async (choice) => {
      const answer = await ctx.ask(
        {
          id:
            choice.scope === 'run'
              ? `q-${ctx.worker.id}-${choice.id}`
              : `q-${n.id}-${tag}-worker-${slot}-${choice.id}`,
          nodeId: choice.scope === 'run' ? null : n.id,
          kind: choice.kind,
          prompt: choice.prompt,
          options: choice.options.map((o, i) =>
            i === 0 && choice.detail !== undefined ? { ...o, detail: choice.detail } : o,
          ),
          context: `The ${ctx.worker.id} worker asks this while working on "${n.title}".`,
        },
        { optionId: choice.auto },
      );
      return answer.optionId ?? choice.auto;
    },
    reserveSession: (budget) => ctx.services.reserveSession(ctx.worker.id, budget),
    wait: ctx.services.wait,
  };
}

/**
 * The id of a question a worker relays from slot `base`: one per distinct question, in the order
 * asked (`base`, then `base-ask2`, …). The same question again (a resumed slot, a look before the
 * agent took the answer) is the same question, with its answer.
 */
function workerQuestionId(ctx: RunContext, base: string, prompt: string): string {
  const asked = ctx.run.questions.filter(
    (q) =>
      q.id === base ||
      (q.id.startsWith(`${base}-ask`) && /^\d+$/.test(q.id.slice(base.length + 4))),
  );
  return (
    asked.find((q) => q.prompt === prompt)?.id ??
    (asked.length === 0 ? base : `${base}-ask${asked.length + 1}`)
  );
}
