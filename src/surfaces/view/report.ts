import type { Run } from '../../core/tree/schema.js';
import type { Driver } from '../../core/view/standing.js';
import type { PageAssets } from './assets.js';
import type { DiffOf } from './diffs.js';
import { nodeDetail, snapshotOf } from './model.js';
import { pageHtml } from './page-html.js';
import type { LogEntry, NodeDetail, ReportData } from './protocol.js';

/** Most characters of diffs one report carries (beyond it, diffs are left out and say so). */
export const REPORT_DIFF_CHARS = 8_000_000;

/**
 * Everything the view shows of one run, for a file that needs no server: the snapshot, every
 * node's detail (code candidates with their diffs, up to {@link REPORT_DIFF_CHARS} in all) and the
 * activity log.
 */
export async function buildReport(
  run: Run,
  runs: Readonly<Record<string, Run>>,
  options: {
    diff?: DiffOf | undefined;
    log: readonly LogEntry[];
    now: Date;
    /** The repository, and the process driving the run as the report is made (null: none). */
    dir: string;
    driver: Driver | null;
  },
): Promise<ReportData> {
  let budget = REPORT_DIFF_CHARS;
  const diff: DiffOf | undefined =
    options.diff === undefined
      ? undefined
      : async (from, to) => {
          if (budget <= 0) return '(left out: this report holds its size limit of diffs already)';
          const text = await (options.diff as DiffOf)(from, to);
          budget -= text.length;
          return text;
        };
  const details: Record<string, NodeDetail> = {};
  // One node at a time: each diff is a git process, and the machine may be busy.
  for (const id of Object.keys(run.nodes)) {
    const detail = await nodeDetail(run, id, diff);
    if (detail !== undefined) details[id] = detail;
  }
  return {
    snapshot: snapshotOf(
      run,
      runs,
      {
        ok: false,
        driver: options.driver,
        note: 'This is a report: answer with maker answer <questionId> <option>, then maker resume.',
      },
      options.dir,
    ),
    details,
    log: options.log,
    generatedAt: options.now.toISOString(),
  };
}

/** The report as one HTML file: code, styles and data inline, no network request of any kind. */
export function reportHtml(report: ReportData, assets: PageAssets): string {
  return pageHtml({ mode: 'report', report }, assets, {
    title: `MAKER run ${report.snapshot.run.id}`,
  });
}
