import { patchRedFlags } from '../patch.js';
import type { Sample } from '../voting/types.js';
import type { AnyFlagRule, FlagRule } from './rule.js';

/** A review flags a candidate only when it is at least this sure. */
export const REVIEW_THRESHOLD = 0.8;

/** A candidate's diff from its base, and the most lines one minimal subtask may change. */
export interface PatchInput {
  readonly patch: string;
  readonly maxChangedLines?: number | undefined;
}

export const oversizedPatchRule: FlagRule<PatchInput> = {
  id: 'oversized',
  scope: 'check',
  description: 'A patch that changes more lines than one minimal subtask may.',
  check: ({ patch, maxChangedLines }) =>
    patchRedFlags(patch, { maxChangedLines }).filter((f) => f.rule === 'oversized'),
};

/** A command run on the candidate, and the lines of its output that say why it failed. */
export interface CheckRun {
  readonly command: string;
  readonly ok: boolean;
  /** What a person reads of a failure (`failureExcerpt` of the output). */
  readonly excerpt: string;
}

export const checkFailedRule: FlagRule<CheckRun> = {
  id: 'check-failed',
  scope: 'check',
  description: "The subtask's planned check (a command that exits 0 when it is done) failed.",
  check: ({ command, ok, excerpt }) =>
    ok ? [] : [{ rule: 'check-failed', message: `\`${command}\` failed: ${excerpt}` }],
};

export const acceptanceTestFailedRule: FlagRule<CheckRun> = {
  id: 'acceptance-test-failed',
  scope: 'check',
  description: "The leaf's acceptance test, voted from its criteria, failed on the candidate.",
  check: ({ command, ok, excerpt }) =>
    ok
      ? []
      : [
          {
            rule: 'acceptance-test-failed',
            message: `The acceptance test voted from the criteria, \`${command}\`, failed: ${excerpt}`,
          },
        ],
};

/** An LLM review's answer (a malformed one is ignored, never trusted), and what it judged. */
export interface ReviewInput {
  readonly review: Sample<{
    readonly verdict: 'ok' | 'suspect';
    readonly confidence: number;
    readonly reason: string;
  }>;
  readonly subject: 'change' | 'decomposition';
}

export const llmReviewRule: FlagRule<ReviewInput> = {
  id: 'llm-review',
  scope: 'check',
  description: `A cheap model judged the candidate or split off-task or confused, at least ${REVIEW_THRESHOLD} sure.`,
  check: ({ review, subject }) =>
    review.ok && review.value.verdict === 'suspect' && review.value.confidence >= REVIEW_THRESHOLD
      ? [
          {
            rule: 'llm-review',
            message: `Review: ${review.value.reason || `the ${subject} looks off-task or confused.`}`,
          },
        ]
      : [],
};

/** A candidate of a reopened subtask, against what the reopening set aside (`why`: the last reason). */
export interface ReopenInput {
  readonly why: string;
  /** Whether the candidate is the change set aside. */
  readonly excluded?: boolean | undefined;
  /** A command that failed before and, with this change, still fails; and its output's end. */
  readonly stillFails?: { readonly command: string; readonly output: string } | undefined;
}

export const reopenedResultRule: FlagRule<ReopenInput> = {
  id: 'reopened-result',
  scope: 'check',
  description: 'The same change as the result set aside when the subtask was reopened.',
  check: ({ why, excluded }) =>
    excluded === true
      ? [
          {
            rule: 'reopened-result',
            message: `The same change as the result set aside when this subtask was reopened (${why}).`,
          },
        ]
      : [],
};

export const reopenEvidenceRule: FlagRule<ReopenInput> = {
  id: 'reopen-evidence',
  scope: 'check',
  description:
    "A reopened subtask's candidate under which the failure that reopened it still fails.",
  check: ({ why, stillFails }) =>
    stillFails === undefined
      ? []
      : [
          {
            rule: 'reopen-evidence',
            message: `With this change, \`${stillFails.command}\` still fails where it failed before (${why}): ${stillFails.output.slice(-300)}`,
          },
        ],
};

/** The rules of checks run on a candidate, in the order the registry lists them. */
export const CHECK_RULES: readonly AnyFlagRule[] = [
  oversizedPatchRule,
  checkFailedRule,
  acceptanceTestFailedRule,
  llmReviewRule,
  reopenedResultRule,
  reopenEvidenceRule,
];
