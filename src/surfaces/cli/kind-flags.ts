import { optionSets, type OptionChoices } from '../../app/workers/index.js';
import { kebab, type KindChoice, type KindOptions } from '../../app/workers/kind-options.js';
import { flag, option, type OptionSpec } from './define.js';
import { oneOf, wholeNumber } from './values.js';

/**
 * The worker kinds' own run options as flags, read off the registry: a kind's option `dailySessions`
 * of its options `jules` is `--jules-daily-sessions` (read as `julesDailySessions`). `maker run`
 * and `maker resume` offer them all; a kind refuses another kind's (see `kindOptions`).
 */

/** `jules-daily-sessions` → `julesDailySessions`: the key commander reads a flag's value under. */
function camel(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function flagOf(set: string, choice: KindChoice): { key: string; spec: OptionSpec<unknown> } {
  const name = `--${set}-${kebab(choice.name)}`;
  const key = camel(name.slice(2));
  const value = choice.value;
  switch (value.type) {
    case 'boolean':
      return { key, spec: flag(name, choice.help) };
    case 'whole':
      return { key, spec: option(`${name} <n>`, choice.help, wholeNumber(value)) };
    case 'oneOf':
      return { key, spec: option(`${name} <${kebab(choice.name)}>`, choice.help, oneOf(value.of)) };
  }
}

/** Every kind's options (`sets`: the registry's) as flags, keyed as commander reads them. */
export function kindFlags(
  sets: readonly KindOptions[] = optionSets(),
): Record<string, OptionSpec<unknown>> {
  return Object.fromEntries(
    sets.flatMap((set) =>
      set.choices.map((choice) => {
        const { key, spec } = flagOf(set.name, choice);
        return [key, spec];
      }),
    ),
  );
}

/**
 * What the flags given ask for, by the options' names (`{ jules: { plan: 'pro' } }`); undefined when
 * none is given. A switch given reads true; one not given chooses nothing (the run keeps its own).
 */
export function kindChoices(
  values: Readonly<Record<string, unknown>>,
  sets: readonly KindOptions[] = optionSets(),
): OptionChoices | undefined {
  const chosen = sets.flatMap((set) => {
    const given = set.choices.flatMap((choice) => {
      const value = values[flagOf(set.name, choice).key];
      return value === undefined || value === false ? [] : [[choice.name, value] as const];
    });
    return given.length === 0 ? [] : [[set.name, Object.fromEntries(given)] as const];
  });
  return chosen.length === 0 ? undefined : Object.fromEntries(chosen);
}

/** How the CLI names a kind's options in its messages: `The --jules-… flags`. */
export function flagsNamed(name: string): string {
  return `The --${name}-… flags`;
}
