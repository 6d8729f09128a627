import { MODEL_ACCESSES } from '../../app/wiring/model-access.js';
import { z } from 'zod';
import { UsageError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { samplingProblem, THINKING_LEVELS, type SamplingOverrides } from '../../core/sampling.js';
import { MAX_FILE_KB } from '../../app/wiring/candidate-allowances.js';
import {
  WORKER_NAMES,
  describeWorkers,
  kindsWhere,
  kindsWithOptions,
  optionSets,
  type OptionChoices,
  type WorkerFacts,
} from '../../app/workers/index.js';
import type { KindOptions, OptionValue } from '../../app/workers/kind-options.js';

/** Run ids as the state file spells them; anything else is refused before it reaches a path or a lookup. */
export const runIdSchema = z
  .string()
  .min(1)
  .max(LIMITS.idChars)
  .regex(/^[a-z0-9-]+$/, 'a run id is lower-case letters, digits and dashes');

/** The `view` flag of `maker_start` and `maker_status`. */
export const viewInput = z
  .boolean()
  .optional()
  .describe(
    'Also serve the live view: a local web page (127.0.0.1, behind a random token) of the run’s tree, votes, red flags and candidates as they happen, where the person can answer questions too. Give the person the address from the result.',
  );

/** The value of one option of a worker kind, as a tool's input. */
function optionInput(value: OptionValue): z.ZodType {
  switch (value.type) {
    case 'whole':
      return z.number().int().min(value.min).max(value.max);
    case 'oneOf':
      return z.enum(value.of);
    case 'boolean':
      return z.boolean();
  }
}

/** The worker kinds' own options (`sets`: the registry's), each as one input named after them (`jules: { plan, … }`). */
export function kindInputs(sets: readonly KindOptions[] = optionSets()): z.ZodRawShape {
  return Object.fromEntries(
    sets.map((set) => [
      set.name,
      z
        .strictObject(
          Object.fromEntries(
            set.choices.map((c) => [c.name, optionInput(c.value).optional().describe(c.help)]),
          ),
        )
        .optional()
        .describe(`Only with worker ${kindsWithOptions(set.name, '"')}`),
    ]),
  );
}

/**
 * What `maker_start` was given of the worker kinds' options, by their names (`{ jules: { plan } }`):
 * its schema checked them (they are not in {@link StartInput}'s type, which the registry decides).
 */
export function kindOptionInputs(input: object): OptionChoices | undefined {
  const given = optionSets().flatMap((set) => {
    const value: unknown = (input as Record<string, unknown>)[set.name];
    return value === undefined ? [] : [[set.name, value as Record<string, unknown>] as const];
  });
  return given.length === 0 ? undefined : Object.fromEntries(given);
}

/** The kinds' options as inputs: checked at run time, typed by the registry (read with {@link kindOptionInputs}). */
const KIND_INPUTS: Record<never, never> = kindInputs();

/** `maker_start`'s arguments: everything a run can be started with, bounded before it reaches a path or a process. */
export const startInput = z
  .strictObject({
    idea: z.string().min(1).max(LIMITS.ideaChars).describe('What to build, in the person’s words'),
    repo: z
      .string()
      .max(LIMITS.pathChars)
      .optional()
      .describe(
        'Repository directory, relative to the workspace (default: the workspace); created if missing',
      ),
    worker: z.enum(WORKER_NAMES).optional().describe(describeWorkers('"')),
    modelAccess: z
      .enum(MODEL_ACCESSES)
      .optional()
      .describe(
        'How MAKER reaches Gemini: "key" (the extension\'s Gemini API key), "vertex" (GOOGLE_GENAI_USE_VERTEXAI with project and location) or "gemini-cli" (the person\'s own signed-in `gemini` makes the calls). Default: the first available in that order; recorded in the run',
      ),
    dailyLimit: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .optional()
      .describe(
        "The person's daily model-request limit, when it differs from the known one of the access (Google sign-in about 1,000; a free key 250)",
      ),
    confirmQuota: z
      .boolean()
      .optional()
      .describe(
        'The person agreed to a run that may use more than half of the day’s model requests (only after maker_start said so and they said yes)',
      ),
    confidence: z
      .enum(['low', 'medium', 'high'])
      .optional()
      .describe('Vote margin k = 1, 2 or 3 and matching caps (default medium)'),
    k: z.number().int().min(1).max(10).optional().describe('Override the vote margin'),
    maxDepth: z
      .number()
      .int()
      .min(0)
      .max(6)
      .optional()
      .describe('Deepest decomposition (default 3)'),
    temperature: z
      .number()
      .min(0)
      .max(2)
      .optional()
      .describe(
        "The temperature every sample is drawn at, 0 to 2 (default: the model's table, 1.0 for Gemini 2.5 and 3 as Google advises). Only to override it when the person asks; recorded in the run's state",
      ),
    thinkingBudget: z
      .number()
      .int()
      .min(0)
      .max(32_768)
      .optional()
      .describe(
        "Gemini 2.5: hidden reasoning tokens allowed per request, every role (default: the model's table, per role); 0 turns thinking off where the model allows. Recorded in the run's state",
      ),
    thinkingLevel: z
      .enum(THINKING_LEVELS)
      .optional()
      .describe(
        "Gemini 3: minimal, low, medium or high thinking for every role (default: the model's table, per role). Recorded in the run's state",
      ),
    check: z
      .string()
      .trim()
      .min(1)
      .max(LIMITS.checkChars)
      .optional()
      .describe(
        'The person’s overall check, e.g. "npm test": run once on the composed result in a sandboxed scratch checkout (needs bubblewrap or unshare) before the final question, which shows its result',
      ),
    runChecks: z
      .boolean()
      .optional()
      .describe(
        'Run checks (default true): each subtask’s check (the planner gives every subtask one) on every candidate, sandboxed, a failing one a red flag, and the checks below every merge again on the merged tree. false turns them off; true also refuses a machine without a sandbox, where by default the result is marked unverified',
      ),
    install: z
      .string()
      .trim()
      .max(2000)
      .optional()
      .describe(
        'How checks get the repository’s dependencies: a command run once per content of the lock files, sandboxed with the network, into a cache (.git/maker-deps/) that checks see read-only. Default: from the lock file found (npm ci --ignore-scripts, pnpm install --frozen-lockfile, pip install -r requirements.txt, go mod download, …); "" installs nothing',
      ),
    allow: z
      .strictObject({
        executables: z
          .array(z.string().min(1).max(512))
          .max(50)
          .optional()
          .describe('Paths or globs candidates may make executable'),
        symlinks: z
          .array(z.string().min(1).max(512))
          .max(50)
          .optional()
          .describe('Paths or globs where candidates may create symbolic links'),
        workflows: z
          .boolean()
          .optional()
          .describe('Candidates may write CI workflows, which run with the repository’s secrets'),
        installFiles: z
          .boolean()
          .optional()
          .describe(
            'Candidates may write files that steer package installs: package managers’ settings (.npmrc, .yarnrc, .yarnrc.yml, .pypirc, pip.conf, pip.ini) and node_modules/',
          ),
      })
      .optional()
      .describe('What candidates may do beyond the defaults (otherwise each is a red flag)'),
    maxFileKb: z
      .number()
      .int()
      .min(1)
      .max(MAX_FILE_KB)
      .optional()
      .describe('Largest file a candidate may write, in KiB (default 1,000,000 bytes)'),
    github: z
      .string()
      .max(140)
      .optional()
      .describe(
        'The GitHub repository to work in, "owner/name": created when missing (private unless githubPublic), cloned into an empty repo directory, or used as origin when histories agree. Node branches are pushed there, the result opens a pull request, and accepting the final veto merges it. Needs the GitHub token setting. Without it, a repository whose origin is on GitHub uses it when a token is set',
      ),
    githubPublic: z.boolean().optional().describe('Create the github repository public'),
    keepCandidates: z
      .boolean()
      .optional()
      .describe('Keep the candidate branches pushed for select questions after the vote'),
    sim: z
      .strictObject({
        seed: z.number().int().min(0).optional(),
        clarify: z
          .boolean()
          .optional()
          .describe('Ask a clarify question at the root (default true)'),
        errorRate: z.number().min(0).max(1).optional(),
        judgeAccuracy: z.number().min(0).max(1).optional(),
        flagRate: z.number().min(0).max(1).optional(),
      })
      .optional()
      .describe(
        `Only with worker ${kindsWhere((k) => k.simulated, '"')}: the simulation’s seed and rates`,
      ),
    view: viewInput,
  })
  .extend(KIND_INPUTS);

/** How `maker_start` names the sampling overrides in what it says. */
const OVERRIDE_NAMES = {
  temperature: 'temperature',
  thinkingBudget: 'thinkingBudget',
  thinkingLevel: 'thinkingLevel',
} as const;

/**
 * `maker_start`'s sampling overrides for a run of `kind` on `model`, or undefined when it gives
 * none. Refused, naming the argument, when the worker samples no model or the model does not take
 * them (a budget for Gemini 3, a level for 2.5, a budget outside the model's range): before
 * anything is created.
 */
export function startSampling(
  input: Pick<z.infer<typeof startInput>, 'temperature' | 'thinkingBudget' | 'thinkingLevel'>,
  kind: Pick<WorkerFacts, 'name' | 'simulated'>,
  model: string,
): SamplingOverrides | undefined {
  const overrides: SamplingOverrides = {
    ...(input.temperature === undefined ? {} : { temperature: input.temperature }),
    ...(input.thinkingBudget === undefined ? {} : { thinkingBudget: input.thinkingBudget }),
    ...(input.thinkingLevel === undefined ? {} : { thinkingLevel: input.thinkingLevel }),
  };
  if (Object.keys(overrides).length === 0) return undefined;
  if (kind.simulated)
    throw new UsageError(
      `The ${kind.name} worker samples no model: temperature, thinkingBudget and thinkingLevel apply to Gemini runs only. Leave them out. Nothing was created.`,
    );
  const problem = samplingProblem(model, overrides, OVERRIDE_NAMES);
  if (problem !== undefined) throw new UsageError(`${problem} Nothing was created.`);
  return overrides;
}
