import { z } from 'zod';

/**
 * What became of a leaf's acceptance test (issue #36), beside its vote (`schema.ts` adds it):
 * `kept` (it fails on the tree before the leaf's code, so candidates must pass it), `discarded`
 * (it passes there: it proves nothing), `none` (the vote did not settle, or found no behaviour to
 * test), `dropped` (every candidate failed it: the test is more likely wrong than all of them),
 * `contested` (candidates that pass the planned check failed it alike, k more than passed it: it
 * no longer gates; how a candidate fares under it keys its vote, as a probe's output does).
 * Absent `status`: voting, or not yet tried on the base. The test itself is the vote's winning draw.
 */
export const acceptanceOutcomeSchema = z.object({
  status: z.enum(['kept', 'discarded', 'none', 'dropped', 'contested']).optional(),
  /** Why, for people (`maker status`, the journal). */
  reason: z.string().optional(),
  /** Its run on the tree before the leaf's code (kept: failing). */
  base: z.object({ command: z.string(), ok: z.boolean(), output: z.string() }).optional(),
  /**
   * A kept test in the leaf's committed result: `added` (written into the winning candidate's
   * tree), `theirs` (the candidate wrote a file at that path itself, and its version stays).
   * Absent: not committed (written before this existed, or the leaf not committed yet).
   */
  committed: z.enum(['added', 'theirs']).optional(),
});
