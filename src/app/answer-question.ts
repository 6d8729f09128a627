import { join } from 'node:path';
import { makeRedactor, MakerError, UsageError } from '../core/errors.js';
import type { Question } from '../core/tree/schema.js';
import type { RunEngine } from './run-engine.js';
import { Journal } from '../adapters/state/journal.js';
import { WorkspaceLock, WorkspaceLockedError } from '../adapters/state/lock.js';
import { makerStateFile } from '../adapters/state/state-file.js';
import { JOURNAL_FILE_NAME, STATE_FILE_NAME } from '../core/workspace-files.js';
import { answerQuestion as answerInRun } from '../engine/hitl/questions.js';

/** A person's answer: an option id, or free text where the question allows it. */
export interface AnswerRequest {
  /** Without it (a workspace's state file only), the run is the one asking `questionId`. */
  readonly runId?: string | undefined;
  readonly questionId: string;
  readonly answer: string;
}

/** An answer recorded: the run, the question as answered, and the run's questions still pending. */
export interface Answered {
  readonly runId: string;
  readonly question: Question;
  readonly pending: string[];
}

/**
 * Where a question is answered: the engine that has the run open (a run it drives waits for the
 * answer and goes on), or the state file of a workspace no live process drives (`command`: what
 * holds its lock meanwhile, for other processes' messages).
 */
export type AnswerPlace =
  | { readonly engine: RunEngine }
  | { readonly dir: string; readonly secrets: readonly string[]; readonly command: string };

/**
 * The one way a person's answer is recorded, for `maker answer`, a terminal's prompt, the live view
 * and `maker_answer`: validated against the question's options (a {@link UsageError} naming them
 * when it fits none), saved, and journalled as `question-answered`.
 */
export async function answerQuestion(
  place: AnswerPlace,
  request: AnswerRequest,
): Promise<Answered> {
  if ('dir' in place) return recordAnswer({ ...place, ...request });
  const { engine } = place;
  if (request.runId === undefined)
    throw new UsageError(`Say which run question ${request.questionId} belongs to.`);
  const question = await engine.answer(request.runId, request.questionId, request.answer);
  const pending = (await engine.pendingQuestions(request.runId)).map((q) => q.id);
  return { runId: request.runId, question, pending };
}

/**
 * Records a person's answer in a workspace no live process is driving: under the workspace lock
 * (refused with `workspace-locked`, naming the owner, while another process holds it), validated
 * by the engine's {@link answerInRun}, saved to the state file and appended to the journal.
 * Without `runId`, the run is the one asking `questionId`.
 */
async function recordAnswer(
  request: AnswerRequest & {
    readonly dir: string;
    readonly secrets: readonly string[];
    readonly command: string;
    readonly now?: Date;
  },
): Promise<Answered> {
  const { dir, questionId } = request;
  const lock = new WorkspaceLock(join(dir, `${STATE_FILE_NAME}.lock`), {
    command: request.command,
  });
  await lock.acquire().catch((error: unknown) => {
    throw answerWhereAsked(error, questionId);
  });
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
    const question = answerInRun(run, questionId, request.answer, now);
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

/**
 * A refused workspace (`error`, the lock's) whose live run waits for this very answer: the way
 * forward is to give it where that run asks, not to stop the run. Other errors are returned as
 * they are. For `maker answer` and for `maker_answer` of a run a terminal drives.
 */
export function answerWhereAsked(error: unknown, questionId: string): unknown {
  if (!(error instanceof WorkspaceLockedError)) return error;
  const { pid, command } = error.owner;
  const terminal =
    'at its terminal, or on its live view page if it was started with --view (the address it printed)';
  const where: Record<string, string> = {
    run: terminal,
    resume: terminal,
    demo: terminal,
    mcp: 'in Gemini CLI, where it was started: /maker answer <questionId> <choice>',
  };
  const place = command === undefined ? undefined : where[command];
  if (place === undefined) return error;
  return new MakerError(
    'workspace-locked',
    `maker ${command} (pid ${pid}) is running this workspace's run and waits for answers there: answer ${questionId} ${place}. \`maker answer\` (and maker_answer, for a run this server does not drive) is for a run no process is driving (after --hitl defer, or once the run stopped).`,
  );
}
