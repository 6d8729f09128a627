import { z } from 'zod';
import { SAMPLING_ROLES, THINKING_LEVELS, type SamplingRole } from '../sampling.js';

/** A run's configuration as `maker-state.json` holds it (part of the schema in `schema.ts`). */

const samplingOverridesSchema = z.object({
  temperature: z.number().min(0).max(2).optional(),
  thinkingBudget: z.number().int().min(0).optional(),
  thinkingLevel: z.enum(THINKING_LEVELS).optional(),
});

/** What one role's requests are sent (`core/sampling.ts`). */
export const samplingSchema = z.object({
  temperature: z.number().min(0).max(2),
  thinkingBudget: z.number().int().min(0).optional(),
  thinkingLevel: z.enum(THINKING_LEVELS).optional(),
  answerTokens: z.number().int().min(1),
  maxOutputTokens: z.number().int().min(1),
});

export const runConfigSchema = z.object({
  /**
   * The worker kind's name (`sim`, `gemini`, `jules`, `jules-fake`, …). The kinds are the
   * application's (`app/workers/`): adding one changes no file here, and a name this MAKER lacks is
   * refused where a run is resumed, by name.
   */
  worker: z.string().regex(/^[a-z][a-z0-9-]{0,39}$/),
  planner: z.enum(['sim', 'gemini']),
  /**
   * The run's plans and candidates are simulated, not real work: its commits, summary and status
   * say so. Absent in files written before it was recorded: then a simulated planner means it.
   */
  simulated: z.boolean().optional(),
  model: z.string().optional(),
  /**
   * How the run reaches Gemini, chosen once when it starts (never a secret): an API key, Vertex AI,
   * or the person's own Gemini CLI. Absent in runs from before it was recorded, and in simulated
   * ones: the key.
   */
  modelAccess: z.enum(['key', 'vertex', 'gemini-cli']).optional(),
  /**
   * How the model is sampled: the run's overrides (`--temperature`, `--thinking-…`) and what each
   * role is sent, from the per-model table with the overrides applied. Absent in files written
   * before it was recorded (and in simulated runs): the table then decides.
   */
  sampling: z
    .object({
      overrides: samplingOverridesSchema.default({}),
      roles: z.object(
        Object.fromEntries(SAMPLING_ROLES.map((r) => [r, samplingSchema])) as Record<
          SamplingRole,
          typeof samplingSchema
        >,
      ),
    })
    .optional(),
  k: z.number().int().min(1),
  confidence: z.enum(['low', 'medium', 'high']),
  maxDepth: z.number().int().min(0),
  maxNodes: z.number().int().min(1),
  maxCandidates: z.number().int().min(1),
  maxBallots: z.number().int().min(1),
  maxFlagRate: z.number().min(0).max(1),
  maxChangedLines: z.number().int().min(1),
  /** Paid calls at once: model calls, LLM-written candidates, checks (a self-limiting worker, as Jules, is not counted). */
  concurrency: z.number().int().min(1),
  seed: z.number().int().nonnegative(),
  hitl: z.enum(['wait', 'auto', 'fail', 'defer']),
  /** Rates of the simulated planner and worker (`sim` runs only). */
  sim: z
    .object({
      depth: z.number().int().min(0).optional(),
      flagRate: z.number().min(0).max(1).optional(),
      errorRate: z.number().min(0).max(1).optional(),
      failRate: z.number().min(0).max(1).optional(),
      confusedRate: z.number().min(0).max(1).optional(),
      conflictRate: z.number().min(0).max(1).optional(),
      judgeAccuracy: z.number().min(0).max(1).optional(),
      clarify: z.boolean().optional(),
    })
    .optional(),
  /**
   * The run options of the worker kind's own (Jules's plan limits): the kind's module checks them
   * (`app/workers/`), core knows no kind's options. Absent: the kind takes none, or its defaults.
   */
  workerOptions: z.record(z.string(), z.unknown()).optional(),
  /** What candidates may do beyond the defaults (`src/core/candidate-policy.ts`). */
  allow: z
    .object({
      /** Globs of paths a candidate may make executable. */
      executables: z.array(z.string().min(1).max(512)).max(50).default([]),
      /** Globs of paths a candidate may make symbolic links. */
      symlinks: z.array(z.string().min(1).max(512)).max(50).default([]),
      /** Whether candidates may write CI workflows (they run with the repository's secrets). */
      workflows: z.boolean().default(false),
      /**
       * Whether candidates may write files that steer package installs (package managers'
       * settings, `node_modules/`). Absent: no (runs from before it were never asked).
       */
      installFiles: z.boolean().optional(),
    })
    .default({ executables: [], symlinks: [], workflows: false }),
  /** Largest file a candidate may write, in bytes. */
  maxFileBytes: z.number().int().min(1).default(1_000_000),
  /**
   * Run checks (subtasks' on candidates, every check below a node after each merge), in a sandbox
   * only. On for new runs unless `--no-checks`; absent (off) in files written before that.
   */
  runChecks: z.boolean().default(false),
  /**
   * The command that installs a tree's dependencies for its checks (`--install`); absent: the
   * default for the lock files found; `''`: install nothing.
   */
  install: z.string().max(2000).optional(),
  defaultBranch: z.string(),
});
