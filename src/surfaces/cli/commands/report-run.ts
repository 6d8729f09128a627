import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { makeRedactor, UsageError } from '../../../core/errors.js';
import type { Run } from '../../../core/tree/schema.js';
import { mermaidTree } from '../../../core/view/mermaid.js';
import { JOURNAL_FILE_NAME } from '../../../core/workspace-files.js';
import { pageAssets } from '../../view/assets.js';
import { workspaceDriver } from '../../../app/run-status.js';
import { chosenRun, withDiffs, workspaceRuns } from '../../../app/read-runs.js';
import { journalTail } from '../../view/journal-tail.js';
import { buildReport, reportHtml } from '../../view/report.js';
import { secretsOf } from '../../../app/env.js';
import type { reportCommand } from './report.js';
import type { CliContext, InputOf } from '../define.js';

/** `maker report`, loaded when it runs (see report.ts for its options and help). */
export async function run(
  { options: o }: InputOf<typeof reportCommand>,
  { io }: CliContext,
): Promise<number> {
  if (o.html === undefined && o.mermaid !== true)
    throw new UsageError(
      'maker report needs --html <file> or --mermaid (or both). See `maker report --help`.',
    );
  const dir = resolve(o.dir ?? io.cwd);
  const found = await workspaceRuns(dir);
  const run = chosenRun(found, o.run);
  const redact = makeRedactor(secretsOf(io.env));
  if (o.mermaid === true)
    io.stdout(`${mermaidTree(run, o.maxNodes === undefined ? {} : { maxNodes: o.maxNodes })}\n`);
  if (o.html !== undefined) {
    const file = resolve(io.cwd, o.html);
    const html = await htmlReport(dir, run, found.state.runs);
    await writeFile(file, redact(html));
    io.stderr(
      `maker: wrote ${file} (run ${run.id}, ${Object.keys(run.nodes).length} nodes, ${Math.ceil(Buffer.byteLength(html) / 1024)} KiB)\n`,
    );
  }
  return 0;
}

async function htmlReport(
  dir: string,
  run: Run,
  runs: Readonly<Record<string, Run>>,
): Promise<string> {
  return withDiffs(dir, async (diff) => {
    const log = await journalTail(join(dir, JOURNAL_FILE_NAME), run.id, 1000);
    const report = await buildReport(run, runs, {
      diff,
      log,
      now: new Date(),
      dir,
      driver: (await workspaceDriver(dir)) ?? null,
    });
    return reportHtml(report, await pageAssets());
  });
}
