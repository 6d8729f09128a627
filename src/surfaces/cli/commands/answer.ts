import { join, resolve } from 'node:path';
import { UsageError } from '../../../core/errors.js';
import { Journal } from '../../../adapters/state/journal.js';
import {
  JOURNAL_FILE_NAME,
  STATE_FILE_NAME,
  makerStateFile,
} from '../../../adapters/state/state-file.js';
import { WorkspaceLock } from '../../../adapters/state/lock.js';
import { answerQuestion } from '../../../engine/questions.js';
import { secretsOf } from '../../wiring.js';
import { makeRedactor } from '../../../core/errors.js';
import { sentences } from '../../../core/text.js';
import { defineCommand } from '../define.js';
import { dirOption, jsonFlag, runOption, USAGE_EXIT } from './common.js';

const NEEDS = 'maker answer needs a question id and an answer: maker answer q-root-veto accept';

export const answerCommand = defineCommand({
  name: 'answer',
  summary: 'answer a pending question (clarify, select or veto)',
  description: `Records a person's answer to a pending question (as printed by status or
run); continue the run with \`maker resume\`.`,
  args: [
    { name: 'questionId', help: 'the question, e.g. q-root-veto', required: true, missing: NEEDS },
    {
      name: 'answer',
      help: 'an option id, its number, or (for a clarify question) your own words',
      required: true,
      variadic: true,
      missing: NEEDS,
    },
  ],
  options: {
    dir: dirOption,
    run: { ...runOption, help: 'the run (default: the one asking this question)' },
    json: { ...jsonFlag, help: 'print the run id and the answered question as JSON' },
  },
  exits: [[0, 'recorded'], [1, 'the state file cannot be read or written'], USAGE_EXIT],
  run: async ({ args, options: o }, { io }) => {
    const [questionId, ...rest] = args as [string, ...string[]];
    const answerText = rest.join(' ').trim();
    if (answerText === '') throw new UsageError(NEEDS);
    const dir = resolve(o.dir ?? io.cwd);
    await new WorkspaceLock(join(dir, `${STATE_FILE_NAME}.lock`), {
      command: 'answer',
    }).holdUntilExit();
    const store = makerStateFile(dir, makeRedactor(secretsOf(io.env)));
    const state = await store.load();
    const run =
      o.run !== undefined
        ? state.runs[o.run]
        : Object.values(state.runs).find((r) =>
            r.questions.some((q) => q.id === questionId && q.answer === undefined),
          );
    if (run === undefined)
      throw new UsageError(
        `No pending question "${questionId}" in ${dir}. See: maker status --dir ${dir}`,
      );
    // Answering edits only the state file: no repository, planner or worker is needed.
    const now = new Date();
    const answered = answerQuestion(run, questionId, answerText, now);
    run.eventSeq += 1;
    await store.save(state);
    const answer = answered.answer?.optionId ?? answered.answer?.text ?? '';
    await new Journal(join(dir, JOURNAL_FILE_NAME), secretsOf(io.env)).append({
      type: 'question-answered',
      questionId,
      answer,
      seq: run.eventSeq,
      runId: run.id,
      at: now.toISOString(),
    });
    if (o.json === true) io.stdout(`${JSON.stringify({ runId: run.id, question: answered })}\n`);
    else
      io.stdout(
        `${sentences(`Answered ${questionId}: ${answer}`, `Continue with: maker resume --dir ${dir}`)}\n`,
      );
    return 0;
  },
});
