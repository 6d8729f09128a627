/**
 * How each model is sampled, as its vendor advises: the temperature, and per role the thinking
 * allowed and the answer's token cap. Every sample of a vote is drawn alike (the first is not
 * special): votes assume independent samples, and Google advises keeping Gemini 3 at its default
 * temperature of 1.0 (lower values risk looping and degraded answers).
 *
 * Facts behind the table (Gemini API documentation, "Thinking" and the model pages):
 * - Gemini 3 models take a `thinkingLevel` (`low` or `high` on Pro; Flash also `minimal` and
 *   `medium`) instead of a token budget; default temperature 1.0.
 * - Gemini 2.5 models take a `thinkingBudget` in tokens: Pro 128–32,768 (thinking cannot be turned
 *   off), Flash 0–24,576, Flash-Lite 512–24,576 or 0; default temperature 1.0.
 * - Older models do not think: no thinking setting is sent.
 * The budgets per role are this project's choice: small for yes/no, review and ballot answers,
 * larger for splits and code.
 */

export const SAMPLING_ROLES = ['minimal', 'split', 'ballot', 'review', 'worker'] as const;
export type SamplingRole = (typeof SAMPLING_ROLES)[number];

export const THINKING_LEVELS = ['minimal', 'low', 'medium', 'high'] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

/** What one request of a role is sent. */
export interface Sampling {
  readonly temperature: number;
  /** Gemini 2.5: tokens of hidden reasoning allowed. */
  readonly thinkingBudget?: number | undefined;
  /** Gemini 3: how much to think. */
  readonly thinkingLevel?: ThinkingLevel | undefined;
  /** The most tokens the answer itself may have (its red flags judge it against this). */
  readonly answerTokens: number;
  /** The whole output cap sent: the answer's tokens plus room for thinking. */
  readonly maxOutputTokens: number;
}

/** A run's choices over the table (`--temperature`, `--thinking-budget`, `--thinking-level`). */
export interface SamplingOverrides {
  readonly temperature?: number | undefined;
  readonly thinkingBudget?: number | undefined;
  readonly thinkingLevel?: ThinkingLevel | undefined;
}

/** The most tokens an answer of each role may have (its red flags judge it against this). */
export const ANSWER_TOKENS: Readonly<Record<SamplingRole, number>> = {
  minimal: 4096,
  split: 4096,
  ballot: 4096,
  review: 4096,
  worker: 16_384,
};

interface ModelEntry {
  /** Model ids this entry covers: the longest matching prefix wins. */
  readonly prefix: string;
  readonly temperature: number;
  readonly thinking?:
    | {
        readonly kind: 'budget';
        readonly min: number;
        readonly max: number;
        /** 0 (no thinking) is allowed besides `min`…`max`. */
        readonly canTurnOff: boolean;
        readonly budget: Readonly<Record<SamplingRole, number>>;
      }
    | {
        readonly kind: 'level';
        readonly levels: readonly ThinkingLevel[];
        readonly level: Readonly<Record<SamplingRole, ThinkingLevel>>;
      };
}

/** Room left for thinking at each level: the documents give no number, so the largest seen in use. */
const LEVEL_ROOM: Readonly<Record<ThinkingLevel, number>> = {
  minimal: 1024,
  low: 8192,
  medium: 16_384,
  high: 32_768,
};

/**
 * Room left for a model that thinks as it likes (no setting sent): Gemini counts thinking against
 * `maxOutputTokens`, and 2.5's automatic thinking often takes up to 8,192 tokens.
 */
export const AUTOMATIC_ROOM = 8192;

/** What the output cap must leave for thinking on top of the answer, for a request's settings. */
export function thinkingRoom(settings: {
  readonly thinkingBudget?: number | undefined;
  readonly thinkingLevel?: ThinkingLevel | undefined;
}): number {
  if (settings.thinkingBudget !== undefined) return Math.max(0, settings.thinkingBudget);
  if (settings.thinkingLevel !== undefined) return LEVEL_ROOM[settings.thinkingLevel];
  return AUTOMATIC_ROOM;
}

const CHEAP_AND_DEEP = (cheap: number, deep: number): Record<SamplingRole, number> => ({
  minimal: cheap,
  review: cheap,
  ballot: cheap * 2,
  split: deep,
  worker: deep,
});

/** The per-model table. Unknown models get the defaults of `''`. */
export const MODEL_TABLE: readonly ModelEntry[] = [
  { prefix: '', temperature: 1 },
  {
    prefix: 'gemini-3',
    temperature: 1,
    thinking: {
      kind: 'level',
      levels: ['low', 'high'],
      level: { minimal: 'low', review: 'low', ballot: 'low', split: 'high', worker: 'high' },
    },
  },
  {
    prefix: 'gemini-3-flash',
    temperature: 1,
    thinking: {
      kind: 'level',
      levels: ['minimal', 'low', 'medium', 'high'],
      level: { minimal: 'low', review: 'low', ballot: 'low', split: 'high', worker: 'high' },
    },
  },
  {
    prefix: 'gemini-2.5-pro',
    temperature: 1,
    thinking: {
      kind: 'budget',
      min: 128,
      max: 32_768,
      canTurnOff: false,
      budget: CHEAP_AND_DEEP(1024, 8192),
    },
  },
  {
    prefix: 'gemini-2.5-flash',
    temperature: 1,
    thinking: {
      kind: 'budget',
      min: 1,
      max: 24_576,
      canTurnOff: true,
      budget: CHEAP_AND_DEEP(1024, 6144),
    },
  },
  {
    prefix: 'gemini-2.5-flash-lite',
    temperature: 1,
    thinking: {
      kind: 'budget',
      min: 512,
      max: 24_576,
      canTurnOff: true,
      budget: CHEAP_AND_DEEP(512, 4096),
    },
  },
];

function entryFor(model: string | undefined): ModelEntry {
  let best = MODEL_TABLE[0] as ModelEntry;
  for (const entry of MODEL_TABLE)
    if ((model ?? '').startsWith(entry.prefix) && entry.prefix.length > best.prefix.length)
      best = entry;
  return best;
}

/**
 * What a request of `role` to `model` is sent: the table's settings, then the run's overrides. An
 * override the model does not take (a budget for a Gemini 3 model, a level for a 2.5 one) is
 * refused by {@link samplingProblem} before a run starts; here it is left out.
 */
export function samplingFor(
  model: string | undefined,
  role: SamplingRole,
  overrides: SamplingOverrides = {},
): Sampling {
  const entry = entryFor(model);
  const answer = ANSWER_TOKENS[role];
  const temperature = overrides.temperature ?? entry.temperature;
  const thinking = entry.thinking;
  if (thinking?.kind === 'budget') {
    const budget = overrides.thinkingBudget ?? thinking.budget[role];
    return {
      temperature,
      thinkingBudget: budget,
      answerTokens: answer,
      maxOutputTokens: answer + budget,
    };
  }
  if (thinking?.kind === 'level') {
    const level = overrides.thinkingLevel ?? thinking.level[role];
    return {
      temperature,
      thinkingLevel: level,
      answerTokens: answer,
      maxOutputTokens: answer + thinkingRoom({ thinkingLevel: level }),
    };
  }
  return { temperature, answerTokens: answer, maxOutputTokens: answer + AUTOMATIC_ROOM };
}

/** Every role's settings for a run on `model`: what the state records. */
export function samplingTable(
  model: string | undefined,
  overrides: SamplingOverrides = {},
): Record<SamplingRole, Sampling> {
  return Object.fromEntries(
    SAMPLING_ROLES.map((role) => [role, samplingFor(model, role, overrides)]),
  ) as Record<SamplingRole, Sampling>;
}

/** How a surface names the overrides in what it says: the CLI's flags by default. */
export type OverrideNames = Readonly<Record<keyof SamplingOverrides, string>>;
const FLAG_NAMES: OverrideNames = {
  temperature: '--temperature',
  thinkingBudget: '--thinking-budget',
  thinkingLevel: '--thinking-level',
};

/**
 * Why the overrides do not fit `model`, as a sentence naming the fix (the overrides called by
 * `names`); undefined when they do.
 */
export function samplingProblem(
  model: string | undefined,
  overrides: SamplingOverrides,
  names: OverrideNames = FLAG_NAMES,
): string | undefined {
  const name = model ?? 'the simulated model';
  if (
    overrides.temperature !== undefined &&
    !(overrides.temperature >= 0 && overrides.temperature <= 2)
  )
    return `${names.temperature} must be between 0 and 2 (got ${overrides.temperature}).`;
  const thinking = entryFor(model).thinking;
  if (overrides.thinkingBudget !== undefined) {
    if (thinking?.kind !== 'budget')
      return `${name} takes no thinking budget${thinking?.kind === 'level' ? `: give ${names.thinkingLevel} instead` : ''}.`;
    const { min, max, canTurnOff } = thinking;
    const budget = overrides.thinkingBudget;
    if (!(budget === 0 && canTurnOff) && !(budget >= min && budget <= max))
      return `${name} takes a thinking budget from ${min} to ${max} tokens${canTurnOff ? ' (or 0, no thinking)' : ''} (got ${budget}).`;
  }
  if (overrides.thinkingLevel !== undefined) {
    if (thinking?.kind !== 'level')
      return `${name} takes no thinking level${thinking?.kind === 'budget' ? `: give ${names.thinkingBudget} instead` : ''}.`;
    if (!thinking.levels.includes(overrides.thinkingLevel))
      return `${name} takes a thinking level of ${thinking.levels.join(' or ')} (got ${overrides.thinkingLevel}).`;
  }
  return undefined;
}

/** The output cap of Gemini 2.5 and 3 models, thinking included (the model pages: 65,536 tokens). */
export const MODEL_OUTPUT_CAP = 65_536;

/** A request's thinking settings raised for its one retry, and the room its output cap leaves. */
export interface RaisedThinking {
  readonly thinkingBudget?: number;
  readonly thinkingLevel?: ThinkingLevel;
  /** Tokens of the output cap left for thinking on top of the answer's. */
  readonly room: number;
}

/**
 * The settings to retry a request with once when its thinking used the whole output cap (finish
 * reason MAX_TOKENS and no answer): a thinking budget twice as large (within the model's range in
 * the table), or, for a level or automatic thinking (no number to raise), twice the room. The
 * answer's tokens plus the room stay within {@link MODEL_OUTPUT_CAP}. Undefined when nothing can
 * be raised: thinking turned off, already at the most the model allows, or (without a budget) no
 * output cap sent.
 */
export function raisedThinking(
  model: string | undefined,
  request: {
    readonly maxOutputTokens?: number | undefined;
    readonly thinkingBudget?: number | undefined;
    readonly thinkingLevel?: ThinkingLevel | undefined;
  },
): RaisedThinking | undefined {
  const room = thinkingRoom(request);
  const most = MODEL_OUTPUT_CAP - (request.maxOutputTokens ?? 0);
  if (request.thinkingBudget !== undefined) {
    if (request.thinkingBudget <= 0) return undefined;
    const thinking = entryFor(model).thinking;
    const max = thinking?.kind === 'budget' ? thinking.max : request.thinkingBudget;
    const budget = Math.min(max, most, 2 * request.thinkingBudget);
    return budget > request.thinkingBudget ? { thinkingBudget: budget, room: budget } : undefined;
  }
  // No cap sent: the model stopped at its own, which no room asked for raises.
  if (request.maxOutputTokens === undefined) return undefined;
  const raised = Math.min(most, 2 * room);
  if (raised <= room) return undefined;
  return request.thinkingLevel === undefined
    ? { room: raised }
    : { thinkingLevel: request.thinkingLevel, room: raised };
}
