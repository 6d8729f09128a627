import { stat } from 'node:fs/promises';
import { UsageError } from '../../../core/errors.js';
import { flag, option } from '../define.js';
import { text } from '../values.js';

/** Options several commands share, defined once. */
export const dirOption = option(
  '--dir <dir>',
  'the git repository (default: the current directory)',
  text('a directory path'),
);
export const runOption = option(
  '--run <id>',
  'the run (default: the latest one)',
  text('a run id (lower-case letters, digits and dashes)', /^[a-z0-9-]+$/),
);
export const jsonFlag = flag('--json', 'print one JSON object');

/** Exit statuses every command shares. */
export const USAGE_EXIT = [
  2,
  'usage error: a flag, argument or setting is wrong or missing',
] as const;
export const INTERRUPTED_EXIT = [130, 'interrupted (Ctrl-C)'] as const;
/** A start a service's rate limit stopped before anything was made (see `STOPS` in core/stops.ts). */
export const RATE_LIMITED_EXIT = [
  75,
  "a rate limit (GitHub's) stopped the start before anything was created: run the same command again after the time given",
] as const;

/** Refuses, as a usage error, a directory that is missing or is a file (for commands that read a run). */
export async function existingDirectory(dir: string, given: boolean): Promise<void> {
  const info = await stat(dir).catch(() => undefined);
  const what = given ? `--dir ${dir}` : `The current directory (${dir})`;
  if (info === undefined)
    throw new UsageError(`${what} does not exist: there is no MAKER run there.`);
  if (!info.isDirectory())
    throw new UsageError(`${what} is a file, not a directory: give the repository's directory.`);
}
