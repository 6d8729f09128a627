import { z } from 'zod';
import { showPath } from './paths.js';
import { programFlags, programKey, type ProgramRules, type VotedProgram } from './voted-program.js';
import type { RedFlag } from './voting/types.js';

/**
 * A probe (issue #36, votes on behaviour): a small program a model wrote from a leaf's task and
 * acceptance criteria alone, never from a code candidate (as AlphaCode's clustering inputs are),
 * that exercises the leaf's interface on representative and edge inputs and prints what it
 * observes (results, thrown errors' types and messages, exit codes) instead of asserting. Each
 * valid candidate is run with it, and candidates that print the same vote together
 * (`voting/behaviour.ts`).
 */
export type Probe = VotedProgram;

/** The most characters a probe may have: a longer one is a confused answer. */
export const PROBE_MAX_CHARS = 20_000;

export const probeShape = z.object({
  path: z.string().min(1).max(512),
  content: z.string().min(1),
  command: z.string().min(1).max(500),
});

/** The answer of the probe role: a probe, or null when the leaf has no behaviour to observe. */
export const probeAnswerSchema = z.object({
  probe: probeShape.nullable(),
  reason: z.string().max(2000).default(''),
});
export type ProbeAnswer = z.infer<typeof probeAnswerSchema>;

/** The vote key of "nothing to probe". */
export const NO_PROBE = 'none';

const PROBE_RULES: ProgramRules = {
  noun: 'probe',
  maxChars: PROBE_MAX_CHARS,
  allowedPath: () => true,
  wrongPath: {
    rule: 'maker-file',
    message: (path) => `${showPath(path)} is MAKER's own file: a probe may not write it.`,
  },
  oversizedRule: 'oversized-probe',
  notRunRule: 'probe-not-run',
};

/**
 * The red flags of a probe answer, for a leaf that may write `scope` (empty: anywhere): an unsafe
 * or MAKER-owned path, a path outside the leaf's files, an oversized file, and a command that does
 * not name the probe it is to run. Returns the probe with its path made canonical, or the flags.
 */
export function probeAnswerFlags(
  probe: Probe,
  scope: readonly string[],
): { readonly ok: true; readonly probe: Probe } | { readonly ok: false; flags: RedFlag[] } {
  const checked = programFlags(probe, scope, PROBE_RULES);
  return checked.ok ? { ok: true, probe: checked.program } : checked;
}

/** A probe answer's vote key: as a test's (path, command, content without comments or layout). */
export function probeKey(probe: Probe | null): string {
  return probe === null ? NO_PROBE : programKey(probe);
}
