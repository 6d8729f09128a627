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
