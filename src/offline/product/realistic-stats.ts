import type { TestAnswerKind } from './acceptance-answers.js';
import type { ProbeAnswerKind } from './probe-answers.js';
import type { PromptKind } from './prompt-kinds.js';

/** What the fake produced and saw: for reports, and to check it behaved as set. */
export interface RealisticStats {
  readonly calls: Record<PromptKind, number>;
  /** Code samples by what was wrong with them (`correct`, a flaw, `slip:<kind>`, or `invented`: a wrong plan's extra subtask). */
  readonly code: Record<string, number>;
  readonly plans: { correct: number; wrong: number };
  /** Answers of the test role by what they were (`right`, `none`, `vacuous`, …). */
  readonly tests: Partial<Record<TestAnswerKind, number>>;
  /** Answers of the probe role by what they were (`right`, `none`, `constant`, …). */
  readonly probes: Partial<Record<ProbeAnswerKind, number>>;
  /** Ballot options and reviewed changes it could not tie to a sample it wrote (judged blind). */
  unmatched: number;
}

/** Stats of a fake that has answered nothing yet. */
export function emptyStats(): RealisticStats {
  return {
    calls: { minimal: 0, split: 0, ballot: 0, review: 0, worker: 0, test: 0, probe: 0 },
    code: {},
    plans: { correct: 0, wrong: 0 },
    tests: {},
    probes: {},
    unmatched: 0,
  };
}
