import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../../core/errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** `parseArgs` with strict checking whose complaints become {@link UsageError}s pointing at `--help`. */
export function parseCommandArgs<const O extends Options>(
  command: string,
  args: readonly string[],
  options: O,
) {
  try {
    return parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: true }>({
      args: [...args],
      options,
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new UsageError(
      `${(error as Error).message.replace(/\. To specify.*$/s, '.')} See \`maker ${command} --help\`.`,
    );
  }
}

/** Reads a numeric flag; undefined when absent. Rejects anything that is not a finite number in range. */
export function numberFlag(
  name: string,
  raw: string | boolean | undefined,
  range: { min?: number; max?: number; integer?: boolean; exclusiveMin?: boolean } = {},
): number | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || raw.trim() === '')
    throw new UsageError(`--${name} needs a value.`);
  const value = Number(raw);
  const kind = range.integer === true ? 'a whole number' : 'a number';
  const bounds = [
    range.min === undefined ? '' : `${range.exclusiveMin === true ? '>' : '≥'} ${range.min}`,
    range.max === undefined ? '' : `≤ ${range.max}`,
  ]
    .filter(Boolean)
    .join(' and ');
  const expected = `--${name} must be ${kind}${bounds === '' ? '' : ` ${bounds}`} (got "${raw}").`;
  if (!Number.isFinite(value)) throw new UsageError(expected);
  if (range.integer === true && !Number.isInteger(value)) throw new UsageError(expected);
  if (
    range.min !== undefined &&
    (range.exclusiveMin === true ? value <= range.min : value < range.min)
  )
    throw new UsageError(expected);
  if (range.max !== undefined && value > range.max) throw new UsageError(expected);
  return value;
}

export function rejectPositionals(command: string, positionals: readonly string[]): void {
  if (positionals.length > 0)
    throw new UsageError(
      `Unexpected argument "${positionals[0]}". See \`maker ${command} --help\`.`,
    );
}
