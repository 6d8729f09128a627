import { defineCommand, flag, option } from '../define.js';
import { text, wholeNumber } from '../values.js';
import { dirOption, runOption, USAGE_EXIT } from './common.js';

export const reportCommand = defineCommand({
  name: 'report',
  summary: 'the run as one offline HTML file, or its tree as a Mermaid diagram',
  description: `The picture \`maker view\` shows, for sharing: --html writes one self-contained
HTML file (code, styles and data inline; it opens from disk with the network
off) with every node's candidates, diffs, votes and red flags. --mermaid prints
the tree as a Mermaid flowchart on stdout (GitHub renders it in a \`\`\`mermaid
block); big trees fold their deepest subtrees into "… N more nodes" boxes.`,
  options: {
    dir: dirOption,
    run: runOption,
    html: option('--html <file>', 'write the HTML report to this file', text('a file path')),
    mermaid: flag('--mermaid', 'print the tree as a Mermaid diagram'),
    maxNodes: option(
      '--max-nodes <n>',
      'Mermaid: most boxes drawn (default 100)',
      wholeNumber({ min: 2, max: 2000 }),
    ),
  },
  exits: [
    [0, 'written'],
    [1, 'no MAKER run there, the state file cannot be read, or the file cannot be written'],
    USAGE_EXIT,
  ],
});
