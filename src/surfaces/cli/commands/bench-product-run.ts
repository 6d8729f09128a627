import {
  chooseIdeas,
  runProductBench,
  type ProductBenchReport,
} from '../../bench/product-bench.js';
import { formatCount } from '../io.js';
import type { benchProductCommand } from './bench-product.js';
import type { CliContext, InputOf } from '../define.js';

/** `maker bench product`, loaded when it runs (see bench-product.ts for its options and help). */
export async function run(
  { options: o }: InputOf<typeof benchProductCommand>,
  { io }: CliContext,
): Promise<number> {
  const quick = o.quick === true;
  const ideas = chooseIdeas(o.ideas?.split(','), quick).map((i) => i.name);
  const report = await runProductBench({
    ideas,
    p: o.p ?? 0.8,
    slip: o.slip ?? 0.1,
    judgeAccuracy: o.judgeAccuracy ?? 0.9,
    seed: o.seed ?? 1,
    runs: o.runs ?? (quick ? 1 : 5),
    ...(o.editFormat === undefined ? {} : { editFormat: o.editFormat }),
    progress: (line) => io.stderr(`maker: ${line}\n`),
  });
  io.stdout(o.json === true ? `${JSON.stringify(report)}\n` : table(report));
  // A product failing its hidden tests, or a MAKER run that stops, is a measurement; a prompt
  // the fake could not answer is the bench's own failure (the prompts moved under it).
  return report.runs.some((r) => r.error?.includes('realistic fake model:') === true) ? 1 : 0;
}

const pct = (x: number | null) => (x === null ? 'n/a' : `${Math.round(x * 100)}%`);

/** The report as a table: one row per idea and arm, then the totals. */
export function table(report: ProductBenchReport): string {
  const k = report.knobs;
  const rows = [['idea', 'arm', 'passed', 'calls', 'tokens', 'wall s']];
  for (const idea of report.ideas)
    for (const arm of ['maker', 'single'] as const) {
      const runs = report.runs.filter((r) => r.idea === idea && r.arm === arm);
      rows.push([
        idea,
        arm === 'maker' ? 'MAKER' : 'single shot',
        `${runs.filter((r) => r.hidden.passed).length}/${runs.length}`,
        formatCount(runs.reduce((s, r) => s + r.modelCalls, 0)),
        formatCount(runs.reduce((s, r) => s + r.tokens, 0)),
        (runs.reduce((s, r) => s + r.wallMs, 0) / 1000).toFixed(1),
      ]);
    }
  for (const [label, t] of [
    ['MAKER', report.maker],
    ['single shot', report.single],
  ] as const)
    rows.push([
      'all',
      label,
      `${t.passed}/${t.runs} (${pct(t.passRate)})`,
      formatCount(t.modelCalls),
      formatCount(t.tokens),
      (t.wallMs / 1000).toFixed(1),
    ]);
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
  const lines = rows.map((r) =>
    r
      .map((cell, c) => cell.padEnd(widths[c] ?? 0))
      .join('  ')
      .trimEnd(),
  );
  const v = report.maker.leafVotes;
  const s = report.maker.splitVotes;
  return [
    `Product benchmark (SIMULATED model: realistic fake, p ${k.p}, slip ${k.slip}, edit format ${k.editFormat}, judge accuracy ${k.judgeAccuracy}, seed ${k.seed}, ${k.runs} run(s) per idea)`,
    ...lines,
    `MAKER / single shot pass rate: ${report.ratio === null ? 'n/a (single shot passed none)' : `${report.ratio}x`}`,
    `MAKER leaf votes: ${v.votes}: ${v.agreement} by agreement, ${v.ballots} by ballots, ${v.chosen} chosen by policy, ${v.undecided} undecided, ${v.raisedK} with k raised after a narrow win; agreement share of decided: ${pct(report.maker.agreementShare)}; pooled by behaviour (different texts, one behaviour): ${v.pooled}, of which the landed text was voted among the winner's texts: ${v.textVoted}; raised votes whose earlier decision stood: ${v.kStood}`,
    `The fake's code samples for MAKER: ${Object.entries(report.maker.codeSamples)
      .map(([kind, n]) => `${kind} ${n}`)
      .join(', ')}; ballot options or reviews it could not place: ${report.maker.unmatched}`,
    `The fake's acceptance-test answers for MAKER (kept only if they fail without the code): ${
      Object.entries(report.maker.testAnswers)
        .map(([kind, n]) => `${kind} ${n}`)
        .join(', ') || 'none asked'
    }`,
    `The fake's probe answers for MAKER (candidates keyed by what a kept probe prints): ${
      Object.entries(report.maker.probeAnswers)
        .map(([kind, n]) => `${kind} ${n}`)
        .join(', ') || 'none asked'
    }`,
    `MAKER's model calls by what they asked: ${Object.entries(report.maker.callsByRole)
      .map(([role, n]) => `${role} ${formatCount(n)}`)
      .join(', ')}`,
    `MAKER split votes: ${s.votes}: ${s.agreement} by agreement, ${s.ballots} by ballots, ${s.chosen} chosen by policy, ${s.undecided} undecided, ${s.raisedK} with k raised`,
    `MAKER's failed products by shape: ${Object.entries(report.maker.shapes)
      .map(([shape, n]) => `${shape} ${n}`)
      .join(
        ', ',
      )}; runs stopped for a person: ${report.maker.haltedForPerson} (${report.maker.upstreamHalts} with an upstream cause)`,
    `Model calls per passing product: MAKER ${report.maker.callsPerPassing ?? 'n/a'}, single shot ${report.single.callsPerPassing ?? 'n/a'} (${report.callRatio === null ? 'n/a' : `${report.callRatio}x`}); tokens per passing product: MAKER ${report.maker.tokensPerPassing === null ? 'n/a' : formatCount(report.maker.tokensPerPassing)}, single shot ${report.single.tokensPerPassing === null ? 'n/a' : formatCount(report.single.tokensPerPassing)}`,
    '',
  ].join('\n');
}
