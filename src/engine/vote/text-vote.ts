import { voteClasses, type VoteClass } from '../../core/voting/classes.js';
import type { Draw, TreeNode, VoteRecord } from '../../core/tree/schema.js';
import { initialCandidates } from '../../core/tree/presets.js';
import { aheadByK, contenders } from '../../core/voting/schedule.js';
import type { RunContext } from '../run/run-context.js';
import { castBallots, type BallotSpec } from './ballots.js';
import { tally } from './votes.js';

/**
 * Which member of the winning class `key` lands. A class keyed by behaviour (candidates that
 * printed the same under the leaf's probe, `core/voting/behaviour.ts`) may hold texts that differ:
 * the probe saw them do the same, which a weak probe also sees of a right and a subtly wrong
 * candidate. The pooled vote decides the behaviour; the texts inside it are then voted as a vote
 * without probes would: a text ahead of every other by k (by sample votes within the class) lands;
 * otherwise judges choose among the texts with ballots, ahead by k, at most 2k − 1 of them (the
 * behaviour is decided; this only picks its text, and texts that behave alike are often all right,
 * which judges split on at random: a full ballot cap there buys nothing); if they do not settle,
 * their favourite (the text most ballots chose, else the one with most votes) lands, and it is
 * said so.
 * Saved on the record (`landed`), so a resume lands the same member.
 */
export async function landedMember(
  ctx: RunContext,
  n: TreeNode,
  vote: string,
  record: VoteRecord,
  ballot: BallotSpec,
  key: string,
): Promise<Draw | undefined> {
  const cls = tally(record.draws).find((c) => c.key === key);
  if (cls === undefined) return undefined;
  const bySlot = (slot: number) => cls.members.find((m) => m.slot === slot);
  if (record.landed?.key === key) return bySlot(record.landed.slot) ?? cls.representative;
  // Each member under its text's key (its parse-normalised content), so texts form classes.
  const texts = voteClasses(cls.members.map((m) => ({ ...m, key: m.behaviour?.text ?? m.key })));
  if (texts.length < 2) return cls.representative;
  const k = record.k ?? ctx.run.config.k;
  const [top, second] = texts as [VoteClass, VoteClass];
  let chosen: { slot: number; by: 'agreement' | 'ballots' | 'favourite' };
  if (aheadByK(top.votes, second.votes, k))
    chosen = { slot: top.representative.slot, by: 'agreement' };
  else {
    const ballots = (record.textBallots ??= []);
    const result = await castBallots(
      ctx,
      n,
      vote,
      record,
      ballot,
      contenders(texts, top.votes, k),
      k,
      ballots,
      `${vote}-text-ballot`,
      Math.min(ctx.run.config.maxBallots, initialCandidates(k)),
    );
    const favourite = result.status === 'decided' ? result.key : (result.leader?.key ?? top.key);
    const text = texts.find((c) => c.key === favourite) ?? top;
    chosen = {
      slot: text.representative.slot,
      by: result.status === 'decided' ? 'ballots' : 'favourite',
    };
  }
  record.landed = { key, slot: chosen.slot, texts: texts.length, by: chosen.by };
  await ctx.save(n);
  ctx.emit({
    type: 'vote-text-chosen',
    nodeId: n.id,
    vote,
    texts: texts.length,
    slot: chosen.slot,
    by: chosen.by,
  });
  return bySlot(chosen.slot) ?? cls.representative;
}
