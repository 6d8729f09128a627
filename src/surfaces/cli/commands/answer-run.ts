import { resolve } from 'node:path';
import { UsageError } from '../../../core/errors.js';
import { answerQuestion } from '../../../app/answer-question.js';
import { secretsOf } from '../../../app/env.js';
import { sentences } from '../../../core/text.js';
import { existingDirectory } from './common.js';
import { NEEDS } from './answer.js';
import type { answerCommand } from './answer.js';
import type { CliContext, InputOf } from '../define.js';

/** `maker answer`, loaded when it runs (see answer.ts for its options and help). */
export async function run(
  { args, options: o }: InputOf<typeof answerCommand>,
  { io }: CliContext,
): Promise<number> {
  const [questionId, ...rest] = args as [string, ...string[]];
  const answerText = rest.join(' ').trim();
  if (answerText === '') throw new UsageError(NEEDS);
  const dir = resolve(o.dir ?? io.cwd);
  await existingDirectory(dir, o.dir !== undefined);
  const {
    runId,
    question: answered,
    pending,
  } = await answerQuestion(
    { dir, secrets: secretsOf(io.env), command: 'answer' },
    { runId: o.run, questionId, answer: answerText },
  );
  const answer = answered.answer?.optionId ?? answered.answer?.text ?? '';
  const resume = `maker resume --dir ${dir} --run ${runId}`;
  const next =
    pending.length === 0
      ? `Nothing else is pending: run ${runId} is ready to resume. Continue with: ${resume}`
      : `${pending.length} question(s) still pending (${pending.join(', ')}): answer them with maker answer --dir ${dir} <questionId> <option>, then: ${resume}`;
  if (o.json === true)
    io.stdout(`${JSON.stringify({ runId, question: answered, pending, next })}\n`);
  else io.stdout(`${sentences(`Answered ${questionId}: ${answer}`)}\n${next}\n`);
  return 0;
}
