import { defineCommand } from '../define.js';
import { dirOption, jsonFlag, runOption, USAGE_EXIT } from './common.js';

export const NEEDS =
  'maker answer needs a question id and an answer: maker answer q-root-veto accept';

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
});
