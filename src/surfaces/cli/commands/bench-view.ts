import { INTERRUPTED_EXIT } from './common.js';
import { defineCommand, flag, option } from '../define.js';
import { wholeNumber } from '../values.js';

export const benchViewCommand = defineCommand({
  name: 'view',
  summary: "the live view's first picture of a big tree in headless Chromium",
  description: `The live view at scale. Makes a finished run over N minimal subtasks (as
\`maker bench tree\` does, without latency), serves it as \`maker view\` does,
and loads the page R times in headless Chromium (/usr/bin/chromium, driven by
playwright-core, a development dependency): the time from the start of
navigation to the first picture of the whole tree, and the nodes drawn.`,
  options: {
    leaves: option(
      '--leaves <n>',
      'minimal subtasks (default 1000)',
      wholeNumber({ min: 1, max: 5000 }),
    ),
    loads: option('--loads <n>', 'page loads (default 5)', wholeNumber({ min: 1, max: 50 })),
    json: flag('--json', 'print one JSON object'),
  },
  exits: [
    [0, 'measured'],
    [1, 'the run or a page load failed'],
    [2, 'usage error (or no Chromium, or no playwright-core), said before anything starts'],
    INTERRUPTED_EXIT,
  ],
});
