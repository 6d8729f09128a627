import { UsageError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import type { Question, Run } from '../../core/tree/schema.js';

/** The answer a question got: a chosen option and/or free text. */
export interface Answer {
  readonly optionId?: string | undefined;
  readonly text?: string | undefined;
  /** Given by the run's `--hitl auto` policy, not by a person. */
  readonly auto?: true | undefined;
}

/**
 * Records a person's answer on a run's question: an option (by id, label or 1-based number), or
 * free text where the question allows it (`auto`: the run's `--hitl auto` policy answered, not a
 * person). Throws a {@link UsageError} naming the valid options.
 */
export function answerQuestion(
  run: Run,
  questionId: string,
  answer: string,
  now: Date,
  auto = false,
): Question {
  const question = run.questions.find((q) => q.id === questionId);
  if (question === undefined) {
    const pending = run.questions.filter((q) => q.answer === undefined).map((q) => q.id);
    throw new UsageError(
      `Run ${run.id} has no question "${questionId}". Pending: ${pending.length === 0 ? 'none' : pending.join(', ')}.`,
    );
  }
  if (question.answer !== undefined)
    throw new UsageError(`Question ${questionId} was already answered.`);
  const trimmed = answer.trim();
  if (trimmed.length > LIMITS.answerChars)
    throw new UsageError(
      `The answer is ${trimmed.length} characters long; at most ${LIMITS.answerChars} are taken.`,
    );
  const option =
    question.options.find((o) => o.id === trimmed || o.label === trimmed) ??
    (/^\d+$/.test(trimmed) ? question.options[Number(trimmed) - 1] : undefined);
  if (option === undefined && (!question.allowText || trimmed === ''))
    throw new UsageError(
      `"${answer}" is not an option of ${questionId}. Options: ${question.options.map((o, i) => `${i + 1} = ${o.id}`).join(', ')}.`,
    );
  question.answer = {
    ...(option === undefined ? { text: trimmed } : { optionId: option.id }),
    ...(auto ? { auto: true as const } : {}),
    answeredAt: now.toISOString(),
  };
  return question;
}
