import { showPath } from '../paths.js';
import type { RedFlag } from '../voting/types.js';

/**
 * What a rule looks at: a model's `response` (planner, judge or worker answer as received), a
 * worker's `output` before it becomes a tree, a `plan` (a split), the candidate `tree` (the changes
 * git reports against the base), the candidate `content` (the bytes it writes), or a `check` run on
 * the candidate (its patch, its checks and tests, its review).
 */
export const RED_FLAG_SCOPES = ['response', 'output', 'plan', 'tree', 'content', 'check'] as const;
export type RedFlagScope = (typeof RED_FLAG_SCOPES)[number];

/**
 * One red-flag rule. `id` is the `rule` of every flag it raises (saved in state: never renamed);
 * `check` is pure and returns the flags its input earns, none when it has nothing to say. Rules of
 * one scope share that scope's input type, so a scope's rules run as one list.
 */
export interface FlagRule<I> {
  readonly id: string;
  readonly scope: RedFlagScope;
  /** One sentence for `maker doctor --rules`: what the rule discards, and why. */
  readonly description: string;
  readonly check: (input: I) => readonly RedFlag[];
}

/** A rule of any input, as the registry lists it. */
export type AnyFlagRule = FlagRule<never>;

/** The flags of running every rule in order (all flags are kept, not only the first). */
export function runRules<I>(rules: readonly FlagRule<I>[], input: I): RedFlag[] {
  return rules.flatMap((rule) => rule.check(input));
}

/** `"a", "b" and 3 more`: at most five paths, each shown safely, for a flag's message. */
export function somePaths(paths: readonly string[]): string {
  const shown = paths.slice(0, 5).map(showPath).join(', ');
  return `${shown}${paths.length > 5 ? ` and ${paths.length - 5} more` : ''}`;
}

/** A flag naming what `paths` the candidate `why`s, or none when `paths` is empty. */
export function pathsFlag(id: string, paths: readonly string[], why: string): RedFlag[] {
  return paths.length === 0
    ? []
    : [{ rule: id, message: `The candidate ${why}: ${somePaths(paths)}.` }];
}
