import { z } from 'zod';

/** Leading tests, each with its votes and the distinct candidate texts that pass it. */
const agreementSchema = z.array(
  z.object({ key: z.string(), votes: z.number(), passing: z.number() }),
);

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
   * tree), `theirs` (the candidate wrote a file at that path itself, and its version stays),
   * `gate` (the test is outside the leaf's files, which hold no test file: it gated the
   * candidates and is not committed). Absent: not committed (written before this existed, or
   * the leaf not committed yet).
   */
  committed: z.enum(['added', 'theirs', 'gate']).optional(),
  /**
   * The code doubted the kept test (k candidates that pass the planned check failed it alike), so
   * its vote went on at a wider margin (`vote.k`): `key`, the test it had settled on before;
   * `from`, its k then; `settled`, once the leaf's code vote has acted on the outcome (started
   * again when the test `changed`). At most once per leaf.
   */
  doubted: z
    .object({
      key: z.string().optional(),
      from: z.number().int().positive(),
      settled: z.boolean().optional(),
      changed: z.boolean().optional(),
    })
    .optional(),
  /**
   * The vote did not settle before any candidate was drawn, with two tests or more in it: the
   * candidates choose between its leading tests once the code's vote has drawn them (true until
   * they have).
   */
  deferred: z.boolean().optional(),
  /**
   * When a vote did not settle (deferred, or widened by a doubt): its leading tests that fail
   * without the code, each with its votes and the distinct texts of the leaf's candidates that
   * pass it (`agreedWithCode` in the engine).
   */
  agreement: agreementSchema.optional(),
  /**
   * A test `--hitl auto` took where the candidates backed none (a coin: its vote had not settled),
   * chosen again once the code's vote had drawn candidates under it: the same leading tests with
   * the distinct texts of those candidates that pass each; `settled`, once acted on. Once per leaf.
   */
  revisited: z.object({ agreement: agreementSchema, settled: z.boolean().optional() }).optional(),
});
