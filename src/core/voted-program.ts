import { isMakerFile } from './candidate-policy.js';
import { inScope, normalizeRepoPath, showPath } from './paths.js';
import { canonicalJson, normalizeWhitespace } from './voting/equivalence.js';
import { normalizeSourceText } from './voting/source-text.js';
import type { RedFlag } from './voting/types.js';

/**
 * A program a planner writes for a leaf from its task and criteria alone, never from a code
 * candidate (an acceptance test, a probe): one file, and the shell command that runs it.
 */
export interface VotedProgram {
  readonly path: string;
  readonly content: string;
  readonly command: string;
}

/** How one kind of voted program is red-flagged (its rules' names and limits). */
export interface ProgramRules {
  /** What it is called in messages: `test`, `probe`. */
  readonly noun: string;
  readonly maxChars: number;
  /** Whether a path may hold this kind of program (e.g. only test files may hold a test). */
  readonly allowedPath: (path: string) => boolean;
  /** The rule and message of a path it may not hold. */
  readonly wrongPath: { readonly rule: string; readonly message: (path: string) => string };
  readonly oversizedRule: string;
  readonly notRunRule: string;
}

/**
 * The red flags of a voted program, for a leaf that may write `scope` (empty: anywhere): an unsafe
 * or MAKER-owned path, a path its kind may not hold, a path outside the leaf's files (unless
 * `outside` allows it), an oversized file, and a command that does not name the file it is to run.
 * Returns the program with its path made canonical, or the flags.
 */
export function programFlags<T extends VotedProgram>(
  program: T,
  scope: readonly string[],
  rules: ProgramRules,
  outside?: (path: string) => boolean,
): { readonly ok: true; readonly program: T } | { readonly ok: false; flags: RedFlag[] } {
  const flags: RedFlag[] = [];
  const normal = normalizeRepoPath(program.path);
  const path = normal.ok ? normal.path : program.path;
  const { noun } = rules;
  if (!normal.ok)
    flags.push({
      rule: 'unsafe-path',
      message: `The ${noun}'s path ${showPath(program.path)}: ${normal.reason}.`,
    });
  else if (isMakerFile(path) || !rules.allowedPath(path))
    flags.push({ rule: rules.wrongPath.rule, message: rules.wrongPath.message(path) });
  else if (scope.length > 0 && !inScope(path, scope) && outside?.(path) !== true)
    flags.push({
      rule: 'out-of-scope',
      message: `The ${noun} ${showPath(path)} is outside the subtask's files (${scope.join(', ')}).`,
    });
  if (program.content.length > rules.maxChars)
    flags.push({
      rule: rules.oversizedRule,
      message: `The ${noun} has ${program.content.length} characters, over the limit of ${rules.maxChars}.`,
    });
  const stem = path.slice(path.lastIndexOf('/') + 1).replace(/\.[^.]+$/, '');
  if (!program.command.includes(stem))
    flags.push({
      rule: rules.notRunRule,
      message: `The command \`${program.command}\` does not name the ${noun} ${showPath(path)}.`,
    });
  return flags.length > 0 ? { ok: false, flags } : { ok: true, program: { ...program, path } };
}

/**
 * A voted program's key: its path, its command with whitespace normalised, and its content
 * without comments and layout (`normalizeSourceText`), so programs that differ only in those agree.
 */
export function programKey(program: VotedProgram): string {
  return canonicalJson({
    path: program.path,
    command: normalizeWhitespace(program.command),
    content: normalizeSourceText(program.path, program.content),
  });
}
