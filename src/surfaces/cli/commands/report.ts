import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { makeRedactor, UsageError } from '../../../core/errors.js';
import type { Run } from '../../../core/tree/schema.js';
import { mermaidTree } from '../../../core/view/mermaid.js';
import { GitWorkspace } from '../../../adapters/git/git-workspace.js';
import { JOURNAL_FILE_NAME, makerStateFile } from '../../../adapters/state/state-file.js';
import { pageAssets } from '../../view/assets.js';
import { journalTail } from '../../view/journal-tail.js';
import { buildReport, reportHtml } from '../../view/report.js';
import { secretsOf } from '../../wiring.js';
import { defineCommand, flag, option } from '../define.js';
import { text, wholeNumber } from '../values.js';
import { dirOption, noRuns, runOption, USAGE_EXIT } from './common.js';

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
  run: async ({ options: o }, { io }) => {
    if (o.html === undefined && o.mermaid !== true)
      throw new UsageError(
        'maker report needs --html <file> or --mermaid (or both). See `maker report --help`.',
      );
    const dir = resolve(o.dir ?? io.cwd);
    const state = await makerStateFile(dir).load();
    const runs = Object.values(state.runs).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    const run = o.run === undefined ? runs.at(-1) : state.runs[o.run];
    if (runs.length === 0) throw noRuns(dir);
    if (run === undefined)
      throw new UsageError(
        `No run "${o.run}" in ${dir}. Runs: ${runs.map((r) => r.id).join(', ')}.`,
      );
    const redact = makeRedactor(secretsOf(io.env));
    if (o.mermaid === true)
      io.stdout(`${mermaidTree(run, o.maxNodes === undefined ? {} : { maxNodes: o.maxNodes })}\n`);
    if (o.html !== undefined) {
      const file = resolve(io.cwd, o.html);
      const html = await htmlReport(dir, run, state.runs);
      await writeFile(file, redact(html));
      io.stderr(
        `maker: wrote ${file} (run ${run.id}, ${Object.keys(run.nodes).length} nodes, ${Math.ceil(Buffer.byteLength(html) / 1024)} KiB)\n`,
      );
    }
    return 0;
  },
});

async function htmlReport(
  dir: string,
  run: Run,
  runs: Readonly<Record<string, Run>>,
): Promise<string> {
  const git = await GitWorkspace.open(dir).catch(() => undefined);
  try {
    const log = await journalTail(join(dir, JOURNAL_FILE_NAME), run.id, 1000);
    const report = await buildReport(run, runs, {
      diff: git === undefined ? undefined : (from, to) => git.diff(from, to),
      log,
      now: new Date(),
    });
    return reportHtml(report, await pageAssets());
  } finally {
    await git?.close();
  }
}
