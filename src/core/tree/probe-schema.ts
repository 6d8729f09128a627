import { z } from 'zod';

/** A probe's run on one tree as the state keeps it: whether it exited 0 in time, its output's tail. */
export const probeRunSchema = z.object({ ok: z.boolean(), output: z.string() });

/**
 * What became of a leaf's probe (issue #36, votes on behaviour), beside its vote (`schema.ts` adds
 * it): `kept` (candidates are keyed by what it prints), `none` (the vote did not settle, or found
 * nothing to probe). Absent `status`: voting, or not yet run on the base. The probe itself is the
 * vote's winning draw.
 */
export const probeOutcomeSchema = z.object({
  status: z.enum(['kept', 'none']).optional(),
  /** Why, for people (`maker status`, the journal). */
  reason: z.string().optional(),
  /**
   * Its run on the tree before the leaf's code, and the digest of what it printed there when it ran
   * to completion (`voting/behaviour.ts`): a candidate that prints the same keys nothing.
   */
  base: probeRunSchema.extend({ digest: z.string().optional() }).optional(),
});

/**
 * What a code candidate did under its leaf's probe (`engine/probe.ts`), or under its contested
 * acceptance test when no probe keys it (`engine/acceptance-doubt.ts`): the run (`output` clipped),
 * its parse-normalised key (`text`), and, when the run keys nothing, why (`unused`). Without
 * `unused`, the draw's key is its behaviour key.
 */
export const drawBehaviourSchema = probeRunSchema.extend({
  text: z.string(),
  unused: z.string().optional(),
});
export type DrawBehaviour = z.infer<typeof drawBehaviourSchema>;
