import { hashString, shuffle, uniform } from '../../core/random.js';
import { ballotChoiceRule } from '../../core/red-flags/index.js';
import type { VoteClass } from '../../core/voting/classes.js';
import { firstToAheadByK } from '../../core/voting/first-to-ahead-by-k.js';
import type { Draw, TreeNode, VoteRecord } from '../../core/tree/schema.js';
import type { BallotOption } from '../../ports/planner.js';
import type { RunContext } from '../run/run-context.js';
import { drawSlot, type DrawResult } from './draw-slot.js';

/** What the judges of a vote are asked (criteria included), and how a class is shown to them. */
export interface BallotSpec {
  readonly question: string;
  readonly render: (representative: Draw) => string | Promise<string>;
  readonly cast: (
    question: string,
    options: readonly BallotOption[],
    slot: number,
  ) => Promise<DrawResult>;
}

/**
 * Judge ballots among `contenders`, first-to-ahead-by-k over every ballot recorded so far in
 * `ballots` (the vote's own, or those among its winning class's texts).
 */
export function castBallots(
  ctx: RunContext,
  n: TreeNode,
  vote: string,
  record: VoteRecord,
  ballot: BallotSpec,
  contenders: readonly VoteClass[],
  k: number,
  ballots: Draw[] = record.ballots,
  label = `${vote}-ballot`,
  maxDraws = ctx.run.config.maxBallots,
) {
  // The vote's own ballots keep the order they always had (seeded runs stay as they were).
  const salt = hashString(`${n.id}/${ballots === record.ballots ? vote : label}/${record.attempt}`);
  return firstToAheadByK({
    k,
    maxDraws,
    keyOf: (key: string) => key,
    signal: ctx.signal,
    sample: async ({ draw }) => {
      const d = await drawSlot(ctx, n, label, ballots, draw, async () => {
        const order = shuffle(contenders, (i) => uniform(ctx.run.config.seed, salt, draw, i));
        const labelled = await Promise.all(
          order.map(async (c, i) => ({
            label: String.fromCharCode(65 + i),
            content: await ballot.render(c.representative),
            key: c.key,
          })),
        );
        return ballot
          .cast(
            ballot.question,
            labelled.map(({ label, content }) => ({ label, content })),
            draw,
          )
          .then((r) => {
            if (!r.ok) return r;
            const chosen = labelled.find((o) => o.label === r.key);
            return chosen === undefined
              ? {
                  ok: false as const,
                  flags: ballotChoiceRule.check({
                    choice: r.key,
                    options: labelled.map((o) => o.label),
                  }),
                }
              : { ok: true as const, key: chosen.key, value: chosen.label, summary: r.summary };
          });
      });
      return d.status === 'valid'
        ? { ok: true, value: d.key ?? '' }
        : { ok: false, flags: d.flags };
    },
  });
}
