import { runViewBench } from '../../bench/view-bench.js';
import type { benchViewCommand } from './bench-view.js';
import type { CliContext, InputOf } from '../define.js';

/** `maker bench view`, loaded when it runs (see bench-view.ts for its options and help). */
export async function run(
  { options: o }: InputOf<typeof benchViewCommand>,
  { io, signal }: CliContext,
): Promise<number> {
  const report = await runViewBench({ leaves: o.leaves ?? 1000, loads: o.loads ?? 5, signal });
  io.stdout(
    o.json === true
      ? `${JSON.stringify(report)}\n`
      : `View: a run of ${report.nodes} nodes (${report.leaves} leaves), ${report.drawn} drawn: first picture ${report.renderedMs.median} ms after navigation (median of ${report.loads}; ${report.renderedMs.min}-${report.renderedMs.max})\n`,
  );
  return report.status === 'done' ? 0 : 1;
}
