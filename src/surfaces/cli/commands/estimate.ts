import { estimate } from '../../../core/math.js';
import { UsageError } from '../../../core/errors.js';
import { defineCommand, flag, option, required, type RunOf } from '../define.js';
import { formatCount } from '../io.js';
import { decimal, oneOf, wholeNumber } from '../values.js';
import { expectedRequests, quotaVerdict } from '../../../core/quota.js';
import { MODEL_ACCESSES } from '../../../app/wiring/model-access.js';

export const estimateCommand = defineCommand({
  name: 'estimate',
  summary: 'advise k and predict samples and cost from a measured success rate',
  description: `How many votes a task needs, by the paper's scaling laws.

Given a per-step success rate p (measure it on a sample of steps), the number
of steps s and the probability t you want the whole task to succeed with, it
prints the smallest margin k that reaches t (k_min), the chance one step and
the whole task then succeed, and the expected number of samples and cost. As a
MAKER run of s subtasks, it also says how many model requests the planner,
workers and judges would make, and compares them with a daily request limit.`,
  options: {
    p: required(
      option(
        '--p <p>',
        'per-step success probability of one sample, 0.5 < P ≤ 1',
        decimal({ min: 0, max: 1 }),
      ),
    ),
    steps: required(option('--steps <s>', 'number of steps in the task', wholeNumber({ min: 1 }))),
    target: required(
      option(
        '--target <t>',
        'wanted probability that every step is right, 0 < T < 1',
        decimal({ min: 0, max: 1, exclusiveMin: true }),
      ),
    ),
    v: option(
      '--v <v>',
      'share of samples that pass red-flagging (default 1)',
      decimal({ min: 0, max: 1, exclusiveMin: true }),
    ),
    m: option(
      '--m <m>',
      'steps per subtask (default 1, maximal decomposition)',
      wholeNumber({ min: 1 }),
    ),
    k: option('--k <k>', 'evaluate this k instead of k_min', wholeNumber({ min: 1 })),
    initial: option(
      '--initial <b>',
      "draws in each vote's first parallel batch (default k)",
      wholeNumber({ min: 1 }),
    ),
    costPerSample: option(
      '--cost-per-sample <c>',
      'price of one sample, for expectedCost',
      decimal({ min: 0 }),
    ),
    modelAccess: option(
      '--model-access <access>',
      'compare the model requests with the daily limit of this access: key (a free key: 250), gemini-cli (Google sign-in: about 1,000) or vertex (none known)',
      oneOf(MODEL_ACCESSES),
    ),
    dailyLimit: option(
      '--daily-limit <n>',
      'compare the model requests with this daily limit instead',
      wholeNumber({ min: 1, max: 1_000_000 }),
    ),
    json: flag('--json', 'print one JSON object'),
  },
  notes: `Example (the paper's 20-disk run with gpt-4.1-mini):
  maker estimate --p 0.9978 --steps 1048575 --target 0.95
`,
  exits: [
    [0, 'estimated'],
    [2, 'usage error (a missing or invalid option, or a target no k reaches)'],
  ],
});

/** Carries `maker estimate` out. */
export const estimateRun: RunOf<typeof estimateCommand> = {
  run: ({ options: o }, { io }) => {
    const missing = [
      o.p === undefined && '--p',
      o.steps === undefined && '--steps',
      o.target === undefined && '--target',
    ].filter(Boolean);
    if (o.p === undefined || o.steps === undefined || o.target === undefined)
      throw new UsageError(
        `maker estimate needs ${missing.join(', ')}. See \`maker estimate --help\`.`,
      );
    const result = estimate({
      p: o.p,
      steps: o.steps,
      target: o.target,
      v: o.v ?? 1,
      m: o.m ?? 1,
      ...(o.k === undefined ? {} : { k: o.k }),
      ...(o.initial === undefined ? {} : { initialBatch: o.initial }),
      ...(o.costPerSample === undefined ? {} : { costPerSample: o.costPerSample }),
    });
    const kUsed = o.k ?? result.kMin;
    // A MAKER run of s subtasks: planner, worker and judge requests at this k and p.
    const requests = expectedRequests({ subtasks: o.steps / (o.m ?? 1), k: kUsed, p: o.p });
    const verdict = quotaVerdict(requests.total, o.modelAccess, o.dailyLimit);
    if (o.json === true) {
      io.stdout(
        `${JSON.stringify({
          ...result,
          expectedCost: result.expectedCost ?? null,
          requests: { ...requests, dailyLimit: verdict.limit ?? null, overHalf: verdict.overHalf },
        })}\n`,
      );
      return 0;
    }
    const lines = [
      `k_min = ${result.kMin}${o.k === undefined ? '' : ` (evaluating k = ${o.k})`}`,
      `P(one step right)     ${result.pSub.toPrecision(12)}`,
      `P(every step right)   ${result.pFull.toPrecision(6)}`,
      `samples per step      ${result.expectedDrawsPerStep.toFixed(4)}`,
      `samples in all        ${formatCount(Math.round(result.expectedDraws))}`,
    ];
    if (result.expectedCost !== undefined)
      lines.push(`expected cost         ${result.expectedCost.toFixed(2)}`);
    lines.push(
      `model requests        ${formatCount(requests.total)} as a MAKER run (planner ${formatCount(requests.planner)}, workers ${formatCount(requests.workers)}, judges ${formatCount(requests.judges)})`,
    );
    if (verdict.limit !== undefined)
      lines.push(
        `daily limit           ${formatCount(verdict.limit)} (${verdict.what}): ${shareOfLimit(requests.total, verdict.limit)}${verdict.overHalf ? ', a run would ask first' : ''}`,
      );
    if (o.k !== undefined && result.pFull < o.target)
      lines.push(
        `Note: k = ${kUsed} falls short of the target ${o.target}; k_min is ${result.kMin}.`,
      );
    io.stdout(`${lines.join('\n')}\n`);
    return 0;
  },
};

/** How a run's requests compare with a daily limit: within half, over half, or how many times over. */
function shareOfLimit(total: number, limit: number): string {
  if (total <= limit / 2) return 'within half of it';
  if (total <= limit) return 'more than half of it';
  const times = total / limit;
  return `${times < 10 ? times.toFixed(1) : formatCount(Math.round(times))} times it: more than a day's requests (${formatCount(Math.ceil(times))} days' worth)`;
}
