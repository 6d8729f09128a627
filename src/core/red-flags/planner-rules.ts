import { testAnswerFlags, type AcceptanceTest } from '../acceptance-test.js';
import { probeAnswerFlags, type Probe } from '../probe.js';
import type { RedFlag } from '../voting/types.js';
import type { AnyFlagRule, FlagRule } from './rule.js';

/** The subtasks of a proposed split that name no check, when the run runs checks. */
export interface SplitInput {
  readonly unchecked: readonly string[];
}

export const missingCheckRule: FlagRule<SplitInput> = {
  id: 'missing-check',
  scope: 'plan',
  description: 'A split whose subtasks do not each name a check, when the run runs checks.',
  check: ({ unchecked }) =>
    unchecked.length === 0
      ? []
      : [
          {
            rule: 'missing-check',
            message: `Every subtask needs a check (a command that exits 0 when it is done); ${unchecked.join(', ')} ${unchecked.length === 1 ? 'has' : 'have'} none.`,
          },
        ],
};

/** A program a planner wrote for a leaf (an acceptance test or a probe), and the leaf's files. */
export type ProgramInput =
  | { readonly kind: 'test'; readonly program: AcceptanceTest; readonly scope: readonly string[] }
  | { readonly kind: 'probe'; readonly program: Probe; readonly scope: readonly string[] };

const programRule = (id: string, description: string): FlagRule<ProgramInput> => ({
  id,
  scope: 'plan',
  description,
  check: (input) => {
    const read =
      input.kind === 'test'
        ? testAnswerFlags(input.program, input.scope)
        : probeAnswerFlags(input.program, input.scope);
    return read.ok ? [] : read.flags.filter((f) => f.rule === id);
  },
});

/** The rules of voted programs that no other scope has (`voted-program.ts` runs them in one pass). */
export const PROGRAM_RULES: readonly FlagRule<ProgramInput>[] = [
  programRule('not-a-test-file', 'An acceptance test written to a path that is not a test file.'),
  programRule('oversized-test', 'An acceptance test longer than a test may be.'),
  programRule('test-not-run', 'An acceptance test whose command does not name the test file.'),
  programRule('oversized-probe', 'A probe longer than a probe may be.'),
  programRule('probe-not-run', 'A probe whose command does not name the probe file.'),
];

/** A judge's ballot: the label it chose, and the labels it was offered. */
export interface BallotInput {
  readonly choice: string;
  readonly options: readonly string[];
  /** The discriminator of a trace's culprit words it shorter. */
  readonly terse?: boolean | undefined;
}

export const ballotChoiceRule: FlagRule<BallotInput> = {
  id: 'ballot-choice',
  scope: 'response',
  description: 'A judge chose a label that is not one of the options it was offered.',
  check: ({ choice, options, terse }) =>
    options.includes(choice)
      ? []
      : [
          {
            rule: 'ballot-choice',
            message: `The judge chose "${choice}", ${terse === true ? 'not' : 'which is not'} an option.`,
          },
        ],
};

/** The flag of a malformed Towers-of-Hanoi answer (`why`: what is wrong with it). */
export const formatFlag = (why: string): RedFlag => ({
  rule: 'format',
  message: `Malformed answer: ${why}.`,
});

export const formatRule: FlagRule<{ readonly malformed?: string | undefined }> = {
  id: 'format',
  scope: 'response',
  description:
    'A Towers-of-Hanoi answer not in the strict move/next-state format (benchmark only).',
  check: ({ malformed }) => (malformed === undefined ? [] : [formatFlag(malformed)]),
};

/** The rules of planners' and judges' answers beyond the response ones, as the registry lists them. */
export const PLANNER_RULES: readonly AnyFlagRule[] = [
  ballotChoiceRule,
  formatRule,
  missingCheckRule,
  ...PROGRAM_RULES,
];
