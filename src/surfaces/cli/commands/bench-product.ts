import {
  chooseIdeas,
  runProductBench,
  type ProductBenchReport,
} from '../../bench/product-bench.js';
import { PRODUCT_IDEAS, QUICK_IDEAS } from '../../../testing/product/ideas/index.js';
import { DEFAULT_EDIT_FORMAT } from '../../../engine/llm-worker.js';
import { defineCommand, flag, option } from '../define.js';
import { formatCount } from '../io.js';
import { decimal, oneOf, text, wholeNumber } from '../values.js';

export const benchProductCommand = defineCommand({
  name: 'product',
  summary: 'ideas to products: MAKER against a single shot, scored by hidden acceptance tests',
  description: `Ideas to working products. Each built-in idea (${PRODUCT_IDEAS.map((i) => i.name).join(', ')})
goes through MAKER as it runs by default (the real engine and its gemini worker
on a git repository in a temp directory, questions answered by the --hitl auto
policy) and through a single-shot baseline (the same prompts, one sample each,
no vote, no review). The model is a realistic fake (SIMULATED, offline): code
right with probability --p in many forms, else off by one, missing an edge
case, a misspelled export, a missing module or cut short; slips in how files
are written (--slip), which depend on the --edit-format the worker asks for
(over-escaped strings in JSON, broken fences and missing File: lines in fenced
blocks, omitted code in both); plans that vary in wording; judges and reviewers right
with --judge-accuracy; the same --seed gives the same answers. Hidden
acceptance tests, which MAKER never sees, run with node --test on the tree each
arm lands. Reports pass rates, model calls, tokens, wall time and how MAKER's
leaf votes were settled (agreement or ballots). --quick: ${QUICK_IDEAS.join(' and ')}, one run each.`,
  options: {
    ideas: option(
      '--ideas <names>',
      `comma-separated ideas (default all: ${PRODUCT_IDEAS.map((i) => i.name).join(',')})`,
      text('comma-separated idea names', /^[a-z0-9-]+(,[a-z0-9-]+)*$/),
    ),
    p: option(
      '--p <p>',
      "per-sample success of the fake's plans and code (default 0.8)",
      decimal({ min: 0, max: 1 }),
    ),
    slip: option(
      '--slip <s>',
      'share of code samples with a slip (default 0.1)',
      decimal({ min: 0, max: 1 }),
    ),
    judgeAccuracy: option(
      '--judge-accuracy <j>',
      'chance a judge or reviewer is right (default 0.9)',
      decimal({ min: 0, max: 1 }),
    ),
    seed: option(
      '--seed <s>',
      'seed of the first run (default 1); run r uses seed + r',
      wholeNumber({ min: 0, max: 2 ** 31 }),
    ),
    runs: option(
      '--runs <n>',
      'runs of each idea per arm (default 5; 1 with --quick)',
      wholeNumber({ min: 1, max: 100 }),
    ),
    editFormat: option(
      '--edit-format <f>',
      `how the worker asks for files: json (JSON strings) or fenced (File: lines and fenced blocks); default ${DEFAULT_EDIT_FORMAT}`,
      oneOf(['json', 'fenced']),
    ),
    quick: flag('--quick', `${QUICK_IDEAS.join(' and ')}, one run each (for CI)`),
    json: flag('--json', 'print one JSON object'),
  },
  exits: [
    [0, 'measured'],
    [1, 'the fake model could not answer a prompt MAKER sent (the run error names it)'],
    [2, 'usage error'],
  ],
  run: async ({ options: o }, { io }) => {
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
  },
});

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
    `MAKER leaf votes: ${v.votes}: ${v.agreement} by agreement, ${v.ballots} by ballots, ${v.chosen} chosen by policy, ${v.undecided} undecided; agreement share of decided: ${pct(report.maker.agreementShare)}`,
    `The fake's code samples for MAKER: ${Object.entries(report.maker.codeSamples)
      .map(([kind, n]) => `${kind} ${n}`)
      .join(', ')}; ballot options or reviews it could not place: ${report.maker.unmatched}`,
    `MAKER split votes: ${s.votes}: ${s.agreement} by agreement, ${s.ballots} by ballots, ${s.chosen} chosen by policy, ${s.undecided} undecided`,
    '',
  ].join('\n');
}
