import { z } from 'zod';
import {
  abnormalStopRule,
  jsonSchemaParser,
  redFlagger,
  tokenCapRule,
  type ModelResponse,
} from '../../core/red-flags/index.js';
import { testAnswerSchema } from '../../core/acceptance-test.js';
import { probeAnswerSchema } from '../../core/probe.js';
import { ANSWER_TOKENS } from '../../core/sampling.js';
import { subtaskSchema, type Subtask } from '../../core/tree/schema.js';
import type { Sample } from '../../core/voting/types.js';

export { REVIEW_THRESHOLD } from '../../core/red-flags/index.js';

/** Output cap for planner and judge answers: a longer answer is a confused one. */
export const PLANNER_MAX_TOKENS = 4096;
const rules = [tokenCapRule(PLANNER_MAX_TOKENS), abnormalStopRule];

export const minimalAnswerSchema = z.object({
  minimal: z.boolean(),
  reason: z.string().default(''),
});

export const splitAnswerSchema = z
  .object({
    // Every subtask declares the files it may touch: candidates are held to them.
    subtasks: z
      .array(subtaskSchema.extend({ files: subtaskSchema.shape.files.unwrap().min(1) }))
      .min(2)
      .max(8),
    ambiguity: z
      .object({
        question: z.string().min(1).max(1000),
        options: z.array(z.string().min(1).max(300)).max(5).default([]),
      })
      .nullish(),
  })
  .superRefine((value, ctx) => {
    value.subtasks.forEach((subtask, index) => {
      if (subtask.dependsOn.some((d) => d >= index))
        ctx.addIssue({
          code: 'custom',
          path: ['subtasks', index, 'dependsOn'],
          message: 'a subtask may only depend on earlier ones',
        });
    });
    const titles = new Set(value.subtasks.map((s) => s.title.trim().toLowerCase()));
    if (titles.size !== value.subtasks.length)
      ctx.addIssue({ code: 'custom', path: ['subtasks'], message: 'subtask titles repeat' });
  });
export type SplitAnswer = {
  readonly subtasks: readonly Subtask[];
  readonly ambiguity?:
    { readonly question: string; readonly options: readonly string[] } | null | undefined;
};

export const ballotAnswerSchema = z.object({
  choice: z.string().min(1).max(4),
  reason: z.string().default(''),
});
export const reviewAnswerSchema = z.object({
  verdict: z.enum(['ok', 'suspect']),
  confidence: z.number().min(0).max(1),
  reason: z.string().default(''),
});

export const parseMinimal = redFlagger<ModelResponse, z.infer<typeof minimalAnswerSchema>>(
  jsonSchemaParser(minimalAnswerSchema),
  rules,
);
export const parseSplit: (r: ModelResponse) => Sample<SplitAnswer> = redFlagger(
  jsonSchemaParser(splitAnswerSchema),
  rules,
);
export const parseBallot = redFlagger<ModelResponse, z.infer<typeof ballotAnswerSchema>>(
  jsonSchemaParser(ballotAnswerSchema),
  rules,
);
/** A test is code: its answer is capped as a worker's is (it is sampled as one). */
export const parseTestAnswer = redFlagger<ModelResponse, z.infer<typeof testAnswerSchema>>(
  jsonSchemaParser(testAnswerSchema),
  [tokenCapRule(ANSWER_TOKENS.worker), abnormalStopRule],
);
/** A probe is code too: capped as a worker's answer is. */
export const parseProbeAnswer = redFlagger<ModelResponse, z.infer<typeof probeAnswerSchema>>(
  jsonSchemaParser(probeAnswerSchema),
  [tokenCapRule(ANSWER_TOKENS.worker), abnormalStopRule],
);
export const parseReview = redFlagger<ModelResponse, z.infer<typeof reviewAnswerSchema>>(
  jsonSchemaParser(reviewAnswerSchema),
  rules,
);

/** JSON schemas handed to real models (`responseJsonSchema`), matching the zod schemas above. */
export const JSON_SCHEMAS = {
  minimal: z.toJSONSchema(minimalAnswerSchema, { io: 'input' }),
  split: z.toJSONSchema(splitAnswerSchema, { io: 'input' }),
  ballot: z.toJSONSchema(ballotAnswerSchema, { io: 'input' }),
  review: z.toJSONSchema(reviewAnswerSchema, { io: 'input' }),
  test: z.toJSONSchema(testAnswerSchema, { io: 'input' }),
  probe: z.toJSONSchema(probeAnswerSchema, { io: 'input' }),
} as const;
