import { z } from 'zod';

/**
 * A finished node reopened because a failure found later was traced to it (issue #36): what failed
 * where, the failure people are shown, and what the node's new vote holds against its candidates.
 * Part of the state file (`schema.ts`); absent in files written before reopening existed.
 */
export const reopenSchema = z.object({
  /** The node redone: a leaf whose result was voted, committed and merged. */
  node: z.string(),
  /** Where the failure showed. */
  trigger: z.object({
    node: z.string(),
    /**
     * `candidates`: every candidate of `node` failed its check. `merge`: merging a child into
     * `node` broke checks that passed below it. `parent-check`: `node`'s own check failed on its
     * composed result (the root's: before the veto). `integration`: every candidate reconciling a
     * merge's conflicts in `node` failed the checks that passed below it. Files written before the
     * last three existed hold only `candidates`.
     */
    kind: z.enum(['candidates', 'merge', 'parent-check', 'integration']),
    title: z.string(),
  }),
  /** How many candidates (or checks) failed, and the failure's first line, for people. */
  failures: z.number().int().nonnegative(),
  signature: z.string(),
  /** The class that won before: its candidates are red-flagged in the new vote. */
  excluded: z.string().optional(),
  /** Its key up to local names: candidates with it are the same answer too. */
  excludedAlias: z.string().optional(),
  /**
   * A check derived from the failure, where one can be: the trigger's `command` on `trees` (its
   * failing candidates' trees) with the reopened node's files replaced by a new candidate's. A new
   * candidate must make it pass on at least one of them.
   */
  evidence: z
    .object({ command: z.string(), trees: z.array(z.string()).max(3), output: z.string() })
    .optional(),
  /** The node's commit before (kept as a ref for audit: `<branch>-reopened-<n>`). */
  replaced: z.string().optional(),
  at: z.string(),
});

/** What a node keeps of its reopenings: how many, and what its new votes hold against candidates. */
export const nodeReopenSchema = z.object({
  count: z.number().int().nonnegative(),
  excluded: z.array(z.string()).default([]),
  evidence: z.array(reopenSchema.shape.evidence.unwrap()).default([]),
  /** Failures (the trigger's title and signature) that were traced here, latest last. */
  reasons: z.array(z.string()).default([]),
});

export type Reopen = z.infer<typeof reopenSchema>;
export type NodeReopen = z.infer<typeof nodeReopenSchema>;
