import { defineCommand, option } from '../define.js';
import { wholeNumber } from '../values.js';
import { dirOption, runOption, USAGE_EXIT } from './common.js';

export const viewCommand = defineCommand({
  name: 'view',
  summary: "a live page of a run's tree, votes and questions on 127.0.0.1",
  description: `Serves a live web page of a workspace's runs, on 127.0.0.1 only: the
decomposition tree (collapsible, coloured by status), each node's vote tally,
red flags by rule, branch and worker sessions; click a node for its candidates
side by side with their diffs, and which won and why. It follows
maker-state.json and maker-journal.jsonl, so it works beside a \`maker run\` in
another terminal, for a finished run, and for one whose process died.

The first line printed is the page's address with a random token: nothing is
served without it. Pending questions can be answered on the page, as
\`maker answer\` does, while no other maker process drives the workspace (the
page says who does otherwise: answer there, or use \`maker run --view\`).`,
  options: {
    dir: dirOption,
    run: { ...runOption, help: 'the run to open (default: the latest one, following newer runs)' },
    port: option(
      '--port <port>',
      'the port on 127.0.0.1 (default 0: any free one)',
      wholeNumber({ min: 0, max: 65_535 }),
    ),
  },
  notes: 'Serves until interrupted (Ctrl-C).\n',
  exits: [
    [1, 'the state file cannot be read, or the port is taken'],
    USAGE_EXIT,
    [130, 'stopped with Ctrl-C (the normal end)'],
  ],
});
