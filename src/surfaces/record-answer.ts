import { join } from 'node:path';
import { makeRedactor, UsageError } from '../core/errors.js';
import type { Question } from '../core/tree/schema.js';
import { Journal } from '../adapters/state/journal.js';
import { WorkspaceLock } from '../adapters/state/lock.js';
import {
  JOURNAL_FILE_NAME,
  STATE_FILE_NAME,
  makerStateFile,
} from '../adapters/state/state-file.js';
import { answerQuestion } from '../engine/questions.js';

/**
 * Records a person's answer in a workspace no live process is driving: under the workspace lock
 * (refused with `workspace-locked`, naming the owner, while another process holds it), validated
 * by the engine's {@link answerQuestion}, saved to the state file and appended to the journal.
 * `maker answer` and `maker view` both answer this way. Without `runId`, the run is the one
 * asking `questionId`. Returns the run's questions still pending after this one.
 */
export async function recordAnswer(request: {
  readonly dir: string;
  readonly runId?: string | undefined;
  readonly questionId: string;
  readonly answer: string;
  readonly secrets: readonly string[];
  /** What holds the lock meanwhile, for other processes' messages (`answer`, `view`). */
  readonly command: string;
  readonly now?: Date;
}): Promise<{ runId: string; question: Question; pending: string[] }> {
  const { dir, questionId } = request;
  const lock = new WorkspaceLock(join(dir, `${STATE_FILE_NAME}.lock`), {
    command: request.command,
  });
  await lock.acquire();
  try {
    const store = makerStateFile(dir, makeRedactor(request.secrets));
    const state = await store.load();
    const run =
      request.runId !== undefined
        ? state.runs[request.runId]
        : Object.values(state.runs).find((r) =>
            r.questions.some((q) => q.id === questionId && q.answer === undefined),
          );
    const answered =
      run === undefined && request.runId === undefined
        ? Object.values(state.runs)
            .flatMap((r) => r.questions.map((q) => ({ runId: r.id, q })))
            .findLast(({ q }) => q.id === questionId && q.answer !== undefined)
        : undefined;
    if (answered !== undefined)
      throw new UsageError(
        `Question ${questionId} of run ${answered.runId} was already answered: ${answered.q.answer?.optionId ?? answered.q.answer?.text ?? ''}. See: maker status --dir ${dir}`,
      );
    if (run === undefined)
      throw new UsageError(
        request.runId !== undefined
          ? `No run "${request.runId}" in ${dir}.`
          : `No pending question "${questionId}" in ${dir}. See: maker status --dir ${dir}`,
      );
    const now = request.now ?? new Date();
    // Answering edits only the state file: no repository, planner or worker is needed.
    const question = answerQuestion(run, questionId, request.answer, now);
    run.eventSeq += 1;
    await store.save(state);
    await new Journal(join(dir, JOURNAL_FILE_NAME), request.secrets).append({
      type: 'question-answered',
      questionId,
      answer: question.answer?.optionId ?? question.answer?.text ?? '',
      seq: run.eventSeq,
      runId: run.id,
      at: now.toISOString(),
    });
    const pending = run.questions.filter((q) => q.answer === undefined).map((q) => q.id);
    return { runId: run.id, question, pending };
  } finally {
    await lock.release();
  }
}
