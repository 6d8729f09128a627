import { defineCommand, flag, option } from '../define.js';
import { text } from '../values.js';
import { dirOption, jsonFlag, runOption, USAGE_EXIT } from './common.js';

export const statusCommand = defineCommand({
  name: 'status',
  summary: "the run's tree, votes, flags, cost and pending questions",
  description: `Where a run stands: the decomposition tree (status, kind, votes, samples and
red flags per node), the counters, and any pending questions.`,
  options: {
    dir: dirOption,
    run: runOption,
    node: option(
      '--node <id>',
      'one node in detail: its task and every candidate, ballot and vote with its red flags and (with Jules) its session and link',
      text('a node id such as root or 0-1'),
    ),
    trace: flag('--trace', 'add the event journal'),
    json: { ...jsonFlag, help: "print the summary and the run's nodes as JSON" },
  },
  exits: [[0, 'shown'], [1, 'no MAKER run there, or the state file cannot be read'], USAGE_EXIT],
});
