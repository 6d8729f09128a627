import type { CandidatePolicy, TreeChange, WrittenContent } from '../candidate-policy.js';
import type { RedFlag } from '../voting/types.js';
import { CHECK_RULES } from './check-rules.js';
import { CONTENT_RULES, contentInput, EDIT_FORMAT_RULES } from './content-rules.js';
import { OUTPUT_RULES } from './output-rules.js';
import { PLANNER_RULES } from './planner-rules.js';
import { PARSE_RULES, RESPONSE_RULES, type ResponseInput } from './response-rules.js';
import { runRules, type AnyFlagRule, type RedFlagScope } from './rule.js';
import { TREE_RULES, treeInput } from './tree-rules.js';

export * from './check-rules.js';
export * from './content-rules.js';
export * from './output-rules.js';
export * from './planner-rules.js';
export * from './response.js';
export { readJson, type ResponseInput } from './response-rules.js';
export * from './rule.js';
export * from './tree-rules.js';

/**
 * Every red-flag rule the product has, by scope. A flag's `rule` is always one of these ids (a
 * worker may name its own failure: only Jules's `session-stuck` exists). A new rule goes in its
 * scope's file and that file's list; this registry and `maker doctor --rules` pick it up.
 */
export const RED_FLAG_RULES: readonly AnyFlagRule[] = [
  ...RESPONSE_RULES,
  ...PARSE_RULES,
  ...PLANNER_RULES,
  ...OUTPUT_RULES,
  ...TREE_RULES,
  ...CONTENT_RULES,
  ...EDIT_FORMAT_RULES,
  ...CHECK_RULES,
];

/** The rules of one scope, in the order the registry lists them. */
export function rulesOf(scope: RedFlagScope): AnyFlagRule[] {
  return RED_FLAG_RULES.filter((rule) => rule.scope === scope);
}

/** The flags of the rules a response meets before it is parsed (truncation, token cap, stop reason). */
export function responseFlags(input: ResponseInput): RedFlag[] {
  return runRules(RESPONSE_RULES, input);
}

/**
 * The tree rules on the changes a candidate's tree makes: unsafe or non-canonical names, MAKER's
 * own files, submodules, symlinks and new executables (unless allowed), writes through a symlink
 * the base has, CI workflows and files that steer installs (unless allowed), too many files,
 * oversized files, and paths outside the subtask's scope — renames and deletions included.
 * `baseSymlinks` are the symlinks of the base tree among the changed paths' ancestors.
 */
export function treeRedFlags(
  changes: readonly TreeChange[],
  policy: CandidatePolicy,
  baseSymlinks: ReadonlySet<string> = new Set(),
): RedFlag[] {
  return runRules(TREE_RULES, treeInput(changes, policy, baseSymlinks));
}

/**
 * The content rules on what a candidate writes, binary files included: credentials (known formats,
 * the bare AWS secret key in its context, and the run's own configured keys, whatever their
 * length) the old content did not already hold, redaction placeholders it adds, conflict markers.
 */
export function contentRedFlags(
  files: readonly WrittenContent[],
  secrets: readonly string[] = [],
): RedFlag[] {
  return runRules(CONTENT_RULES, contentInput(files, secrets));
}
