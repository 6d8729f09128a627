import { estimate } from '../../../core/math.js';
import { UsageError } from '../../../core/errors.js';
import { numberFlag, parseCommandArgs, rejectPositionals } from '../args.js';
import { formatCount, type CliIo } from '../io.js';

export const ESTIMATE_HELP = `maker estimate — how many votes a task needs, by the paper's scaling laws

Usage:
  maker estimate --p P --steps S --target T [--v V] [--m M] [--k K]
                 [--cost-per-sample C] [--initial B] [--json]

Given a per-step success rate p (measure it on a sample of steps), the number
of steps s and the probability t you want the whole task to succeed with, it
prints the smallest margin k that reaches t (k_min), the chance one step and
the whole task then succeed, and the expected number of samples and cost.

Options:
  --p P                 per-step success probability of one sample, 0.5 < P ≤ 1
  --steps S             number of steps in the task
  --target T            wanted probability that every step is right, 0 < T < 1
  --v V                 share of samples that pass red-flagging (default 1)
  --m M                 steps per subtask (default 1, maximal decomposition)
  --k K                 evaluate this k instead of k_min
  --initial B           draws in each vote's first parallel batch (default k)
  --cost-per-sample C   price of one sample, for expectedCost
  --json                print one JSON object

Example (the paper's 20-disk run with gpt-4.1-mini):
  maker estimate --p 0.9978 --steps 1048575 --target 0.95
`;

export function estimateCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals } = parseCommandArgs('estimate', args, {
    p: { type: 'string' },
    steps: { type: 'string' },
    target: { type: 'string' },
    v: { type: 'string' },
    m: { type: 'string' },
    k: { type: 'string' },
    initial: { type: 'string' },
    'cost-per-sample': { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout(ESTIMATE_HELP);
    return 0;
  }
  rejectPositionals('estimate', positionals);
  const p = numberFlag('p', values.p, { min: 0, max: 1 });
  const steps = numberFlag('steps', values.steps, { min: 1, integer: true });
  const target = numberFlag('target', values.target, { min: 0, max: 1, exclusiveMin: true });
  const missing = [
    p === undefined && '--p',
    steps === undefined && '--steps',
    target === undefined && '--target',
  ].filter(Boolean);
  if (missing.length > 0)
    throw new UsageError(
      `maker estimate needs ${missing.join(', ')}. See \`maker estimate --help\`.`,
    );
  const k = numberFlag('k', values.k, { min: 1, integer: true });
  const initialBatch = numberFlag('initial', values.initial, { min: 1, integer: true });
  const costPerSample = numberFlag('cost-per-sample', values['cost-per-sample'], { min: 0 });
  const result = estimate({
    p: p as number,
    steps: steps as number,
    target: target as number,
    v: numberFlag('v', values.v, { min: 0, max: 1, exclusiveMin: true }) ?? 1,
    m: numberFlag('m', values.m, { min: 1, integer: true }) ?? 1,
    ...(k === undefined ? {} : { k }),
    ...(initialBatch === undefined ? {} : { initialBatch }),
    ...(costPerSample === undefined ? {} : { costPerSample }),
  });
  if (values.json === true) {
    io.stdout(`${JSON.stringify({ ...result, expectedCost: result.expectedCost ?? null })}\n`);
    return 0;
  }
  const kUsed = k ?? result.kMin;
  const lines = [
    `k_min = ${result.kMin}${k === undefined ? '' : ` (evaluating k = ${k})`}`,
    `P(one step right)     ${result.pSub.toPrecision(12)}`,
    `P(every step right)   ${result.pFull.toPrecision(6)}`,
    `samples per step      ${result.expectedDrawsPerStep.toFixed(4)}`,
    `samples in all        ${formatCount(Math.round(result.expectedDraws))}`,
  ];
  if (result.expectedCost !== undefined)
    lines.push(`expected cost         ${result.expectedCost.toFixed(2)}`);
  if (kUsed > 1 && result.pFull < (target as number))
    lines.push(`Note: k = ${kUsed} falls short of the target ${target}; k_min is ${result.kMin}.`);
  io.stdout(`${lines.join('\n')}\n`);
  return 0;
}
