import { UsageError } from '../../core/errors.js';

/**
 * Run options of a worker kind's own (Jules's plan limits): declared as data in the kind's module,
 * so help texts and tool schemas read them without loading zod. The command line offers each as
 * `--<options>-<name>` (`maker run`, `maker resume`), `maker_start` as `<options>: { <name> }`; a
 * run keeps what was chosen in its configuration (`workerOptions`), which core's schema does not
 * look into: the kind's module checks it, here.
 */

/** How one option is written: a whole number in a range, one word of a set, or yes/no. */
export type OptionValue =
  | { readonly type: 'whole'; readonly min: number; readonly max: number }
  | { readonly type: 'oneOf'; readonly of: readonly [string, ...string[]] }
  | { readonly type: 'boolean' };

/** One option a person may choose when a run starts or resumes. */
export interface KindChoice {
  /** camelCase: `dailySessions` (the flag `--jules-daily-sessions`, the input `jules.dailySessions`). */
  readonly name: string;
  /** For the flag's help and the input's description alike. */
  readonly help: string;
  readonly value: OptionValue;
}

/** A kind's run options: what may be chosen, and what a run keeps of it. */
export interface KindOptions {
  /** `jules`: the flags' prefix, `maker_start`'s input, the messages' name for them. */
  readonly name: string;
  readonly choices: readonly KindChoice[];
  /**
   * What a run keeps: the kind's defaults, then `kept` (a resumed run's own), then what was chosen
   * now (checked by {@link optionProblems} first). A choice may stand for several kept options (a
   * Jules plan is its two limits).
   */
  keep(
    chosen: Readonly<Record<string, unknown>>,
    kept?: Readonly<Record<string, unknown>>,
  ): Record<string, unknown>;
  /** For `maker run --help`, after the options: what a person should know of them. */
  readonly notes?: string;
}

/** What is wrong with `values` for `choices`: names none of them declare, values out of range. */
export function optionProblems(
  options: Pick<KindOptions, 'name' | 'choices'>,
  values: Readonly<Record<string, unknown>>,
): string[] {
  return Object.entries(values).flatMap(([name, value]) => {
    if (value === undefined) return [];
    const choice = options.choices.find((c) => c.name === name);
    if (choice === undefined)
      return [
        `${options.name}.${name} is not an option of ${options.name} (${options.choices.map((c) => c.name).join(', ')}).`,
      ];
    return valueFits(choice.value, value)
      ? []
      : [
          `${options.name}.${name} must be ${expected(choice.value)}; got ${JSON.stringify(value)}.`,
        ];
  });
}

/** Throws a {@link UsageError} naming every problem of `values` (see {@link optionProblems}). */
export function checkOptions(
  options: Pick<KindOptions, 'name' | 'choices'>,
  values: Readonly<Record<string, unknown>>,
): void {
  const problems = optionProblems(options, values);
  if (problems.length > 0) throw new UsageError(problems.join(' '));
}

/** The words for a valid value: "a whole number from 1 to 100", "free, pro or ultra". */
export function expected(value: OptionValue): string {
  switch (value.type) {
    case 'whole':
      return `a whole number from ${value.min} to ${value.max}`;
    case 'boolean':
      return 'true or false';
    case 'oneOf':
      return value.of.length === 1
        ? value.of[0]
        : `${value.of.slice(0, -1).join(', ')} or ${value.of[value.of.length - 1]}`;
  }
}

function valueFits(value: OptionValue, given: unknown): boolean {
  switch (value.type) {
    case 'whole':
      return (
        typeof given === 'number' &&
        Number.isInteger(given) &&
        given >= value.min &&
        given <= value.max
      );
    case 'boolean':
      return typeof given === 'boolean';
    case 'oneOf':
      return typeof given === 'string' && value.of.includes(given);
  }
}

/** `dailySessions` → `daily-sessions`. */
export function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}
