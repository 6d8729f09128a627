import type { z as Zod } from 'zod';
import { normalizeRepoPath } from '../../core/paths.js';

type Z = typeof Zod;

/**
 * What an option's text may be: a zod schema from the raw text to the value, and the words an
 * error uses for a valid value ("a whole number from 1 to 20"). The schema is built when an option
 * is given ({@link schemaOf}), zod loaded then: building the command table (`maker --help`) never
 * loads zod, about 0.75 MB of code.
 */
export interface ValueKind<T> {
  readonly schema: (z: Z) => Zod.ZodType<T, string>;
  readonly expected: string;
}

const built = new WeakMap<object, unknown>();

/** The kind's schema, built once; zod is loaded the first time. */
export async function schemaOf<T>(kind: ValueKind<T>): Promise<Zod.ZodType<T, string>> {
  const cached = built.get(kind);
  if (cached !== undefined) return cached as Zod.ZodType<T, string>;
  const { z } = await import('zod');
  const schema = kind.schema(z);
  built.set(kind, schema);
  return schema;
}

function bounds(min?: number, max?: number, exclusiveMin = false): string {
  if (min !== undefined && max !== undefined && !exclusiveMin) return ` from ${min} to ${max}`;
  const parts = [
    min === undefined ? '' : `${exclusiveMin ? '>' : '≥'} ${min}`,
    max === undefined ? '' : `≤ ${max}`,
  ].filter(Boolean);
  return parts.length === 0 ? '' : ` ${parts.join(' and ')}`;
}

/** An integer in [min, max]. Signs are allowed, so "-1" is refused by range, not mistaken for a flag. */
export function wholeNumber(range: { min?: number; max?: number } = {}): ValueKind<number> {
  return {
    schema: (z) => {
      let n = z.number().int();
      if (range.min !== undefined) n = n.gte(range.min);
      if (range.max !== undefined) n = n.lte(range.max);
      return z
        .string()
        .trim()
        .regex(/^[+-]?\d+$/)
        .transform(Number)
        .pipe(n);
    },
    expected: `a whole number${bounds(range.min, range.max)}`,
  };
}

/** A finite number in the range (`exclusiveMin`: strictly above `min`). */
export function decimal(
  range: { min?: number; max?: number; exclusiveMin?: boolean } = {},
): ValueKind<number> {
  return {
    schema: (z) => {
      let n = z.number().finite();
      if (range.min !== undefined)
        n = range.exclusiveMin === true ? n.gt(range.min) : n.gte(range.min);
      if (range.max !== undefined) n = n.lte(range.max);
      return z
        .string()
        .trim()
        .regex(/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i)
        .transform(Number)
        .pipe(n);
    },
    expected: `a number${bounds(range.min, range.max, range.exclusiveMin)}`,
  };
}

/** One of a fixed set of words. */
export function oneOf<const T extends readonly [string, ...string[]]>(
  choices: T,
): ValueKind<T[number]> {
  const list =
    choices.length === 1
      ? choices[0]
      : `${choices.slice(0, -1).join(', ')} or ${choices[choices.length - 1]}`;
  return { schema: (z) => z.enum(choices), expected: list };
}

/** Any non-empty text matching `pattern` (anything non-empty when omitted). */
export function text(expected = 'a non-empty text', pattern?: RegExp): ValueKind<string> {
  return {
    schema: (z) => {
      const base = z.string().trim().min(1);
      return pattern === undefined ? base : base.regex(pattern);
    },
    expected,
  };
}

/** A dependency install command (`--install`): `none` (or nothing) is stored as `''`, install nothing. */
export function installCommand(): ValueKind<string> {
  return {
    schema: (z) =>
      z
        .string()
        .trim()
        .max(2000)
        .transform((v) => (v === 'none' ? '' : v)),
    expected: 'a command of at most 2000 characters, or none',
  };
}

/** A repository-relative path or glob (`scripts/*.sh`, `bin/**`): nothing absolute, nothing climbing out, nothing in `.git`. */
export function repoGlob(): ValueKind<string> {
  return {
    schema: (z) =>
      z
        .string()
        .trim()
        .min(1)
        .max(512)
        .refine((glob) => normalizeRepoPath(glob).ok),
    expected: 'a path or glob inside the repository, e.g. scripts/*.sh',
  };
}
