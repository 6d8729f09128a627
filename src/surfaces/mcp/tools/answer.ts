import { z } from 'zod';
import { LIMITS } from '../../../core/limits.js';
import { sentences } from '../../../core/text.js';
import { runIdSchema } from '../tool-inputs.js';
import { defineTool, messageOf, result } from './tool.js';

export const answerTool = defineTool({
  name: 'maker_answer',
  description:
    'Record the person’s answer to a pending question: an option id (or its number), or their own words for a clarify question. Only pass what the person chose.',
  inputSchema: z.strictObject({
    runId: runIdSchema,
    questionId: z.string().min(1).max(LIMITS.idChars),
    answer: z.string().min(1).max(LIMITS.answerChars),
  }),
  handler: async ({ runId, questionId, answer }, runs) => {
    const question = await runs.answer(runId, questionId, answer);
    const recorded = `Recorded ${questionId} = ${question.answer?.optionId ?? question.answer?.text}`;
    const structured = { runId, questionId, answer: question.answer ?? null };
    const { run, active } = await runs.run(runId);
    // The answer is saved whatever happens next: a run that cannot go on yet says why.
    const blocked = active
      ? undefined
      : await runs.resume(runId).then(
          () => undefined,
          (error: unknown) => messageOf(error).replace(/\nThe run was not changed\.$/, ''),
        );
    if (blocked !== undefined)
      return result(
        `${recorded} (saved). The run cannot go on yet, so it stays stopped:\n${blocked}\nTell the person what is missing; once it is fixed, call maker_resume with runId="${runId}".`,
        { ...structured, resumed: false },
      );
    return result(
      sentences(recorded, `Call maker_wait with runId="${runId}" and cursor=${run.eventSeq}`),
      structured,
    );
  },
});
