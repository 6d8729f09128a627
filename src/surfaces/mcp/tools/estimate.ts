import { z } from 'zod';
import { estimate } from '../../../core/math.js';
import { describeRequests, expectedRequests, quotaVerdict } from '../../../core/quota.js';
import { defineTool, result } from './tool.js';

export const estimateTool = defineTool({
  name: 'maker_estimate',
  description:
    'The MAKER paper’s scaling laws: the vote margin k needed for a target success rate, and the expected samples and cost.',
  inputSchema: z.strictObject({
    p: z.number().gt(0).max(1).describe('Per-step success probability of one sample'),
    steps: z.number().int().min(1),
    target: z.number().gt(0).lt(1).describe('Wanted probability that every step is right'),
    v: z.number().gt(0).max(1).optional().describe('Share of samples that pass red-flagging'),
    m: z.number().int().min(1).optional(),
    costPerSample: z.number().min(0).optional(),
    modelAccess: z
      .enum(['key', 'vertex', 'gemini-cli'])
      .optional()
      .describe('Compare the run’s model requests with the daily limit of this access'),
    dailyLimit: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Compare the run’s model requests with this daily limit instead'),
  }),
  handler: ({ modelAccess, dailyLimit, ...input }) => {
    const e = estimate(input);
    const requests = expectedRequests({
      subtasks: input.steps / (input.m ?? 1),
      k: e.kMin,
      p: input.p,
    });
    const verdict = quotaVerdict(requests.total, modelAccess, dailyLimit);
    const cost = e.expectedCost === undefined ? '' : `, expected cost ${e.expectedCost.toFixed(2)}`;
    return Promise.resolve(
      result(
        `k_min = ${e.kMin}: P(one step right) = ${e.pSub.toPrecision(10)}, P(all right) = ${e.pFull.toPrecision(6)}, ${e.expectedDrawsPerStep.toFixed(3)} samples per step, ${Math.round(e.expectedDraws)} in all${cost}. As a MAKER run: ${describeRequests(requests, verdict)}${verdict.overHalf ? ' — more than half of a day’s requests: ask the person before starting it' : ''}.`,
        {
          ...e,
          expectedCost: e.expectedCost ?? null,
          requests: { ...requests, dailyLimit: verdict.limit ?? null, overHalf: verdict.overHalf },
        },
      ),
    );
  },
});
