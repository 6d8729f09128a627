import { editSizes, oversized, patchSizes } from '../candidate-sizes.js';
import { LIMITS } from '../limits.js';
import { normalizeRepoPath, showPath } from '../paths.js';
import type { RedFlag } from '../voting/types.js';
import type { AnyFlagRule, FlagRule } from './rule.js';
import { tooManyFilesFlag, unsafePathFlag } from './tree-rules.js';

/** One whole-file edit a worker returns (`content: null` deletes the file). */
export interface OutputEdit {
  readonly path: string;
  readonly content: string | null;
}

/** A worker's output as the `output` rules judge it: a patch, whole-file edits, or a failure. */
export type CandidateOutput =
  | { readonly ok: true; readonly patch?: string; readonly edits?: readonly OutputEdit[] }
  | {
      readonly ok: false;
      readonly reason: string;
      /** A worker's own rule id for its failure (Jules's `session-stuck`); else `worker-failed`. */
      readonly rule?: string;
      readonly needsFiles?: readonly string[];
    };

export interface OutputInput {
  readonly output: CandidateOutput;
  /** Largest file a candidate may write, in bytes. */
  readonly maxFileBytes: number;
}

const needs = (output: CandidateOutput) =>
  !output.ok && output.needsFiles !== undefined && output.needsFiles.length > 0;

export const needsFilesRule: FlagRule<OutputInput> = {
  id: 'needs-files',
  scope: 'output',
  description:
    'The worker cannot do the task without paths outside its list: the node is planned again.',
  check: ({ output }) =>
    !output.ok && needs(output) ? [{ rule: 'needs-files', message: output.reason }] : [],
};

export const sessionStuckRule: FlagRule<OutputInput> = {
  id: 'session-stuck',
  scope: 'output',
  description: 'A Jules session that kept asking (over its replies): archived and discarded.',
  check: ({ output }) =>
    !output.ok && !needs(output) && output.rule === 'session-stuck'
      ? [{ rule: 'session-stuck', message: output.reason }]
      : [],
};

export const workerFailedRule: FlagRule<OutputInput> = {
  id: 'worker-failed',
  scope: 'output',
  description: 'The worker produced no candidate (its reason is kept as the message).',
  check: ({ output }) =>
    !output.ok && !needs(output) && output.rule !== 'session-stuck'
      ? [{ rule: 'worker-failed', message: output.reason }]
      : [],
};

/** The edits with their paths made canonical, or the flags of unsafe and repeated paths. */
export function canonicalEdits(
  edits: readonly OutputEdit[],
): { ok: true; edits: OutputEdit[] } | { ok: false; flags: RedFlag[] } {
  const canonical: OutputEdit[] = [];
  const flags: RedFlag[] = [];
  const seen = new Set<string>();
  for (const edit of edits) {
    const normal = normalizeRepoPath(edit.path);
    if (!normal.ok) flags.push(unsafePathFlag(edit.path, normal.reason));
    else if (seen.has(normal.path))
      flags.push({
        rule: 'duplicate-path',
        message: `The candidate writes ${showPath(normal.path)} more than once.`,
      });
    else {
      seen.add(normal.path);
      canonical.push({ path: normal.path, content: edit.content });
    }
  }
  return flags.length > 0 ? { ok: false, flags } : { ok: true, edits: canonical };
}

export const duplicatePathRule: FlagRule<OutputInput> = {
  id: 'duplicate-path',
  scope: 'output',
  description: 'Whole-file edits that write one path more than once.',
  check: ({ output }) => {
    if (!output.ok || output.edits === undefined) return [];
    const read = canonicalEdits(output.edits);
    return read.ok ? [] : read.flags.filter((f) => f.rule === 'duplicate-path');
  },
};

/**
 * What the worker's text says before anything of it is written, the first that has something to
 * say: too many files, files over the size limit (a file over it never becomes an object on
 * disk), unsafe or repeated edit paths. Rules of the `tree` scope judge the tree again.
 */
export function outputFlags({ output, maxFileBytes }: OutputInput): RedFlag[] {
  if (!output.ok) return [];
  // A patch's files are its sections as git reads them, `diff --git` headers or not.
  const sizes =
    output.edits === undefined ? patchSizes(output.patch ?? '') : editSizes(output.edits);
  const files = output.edits?.length ?? sizes.length;
  if (files > LIMITS.candidateFiles) return [tooManyFilesFlag(files)];
  const big = oversized(sizes, maxFileBytes);
  if (big.length > 0)
    return [
      {
        rule: 'oversized-file',
        message: `The candidate writes files over ${maxFileBytes} bytes: ${big
          .slice(0, 5)
          .map((s) => `${showPath(s.path)} (${s.bytes} bytes)`)
          .join(', ')}${big.length > 5 ? ` and ${big.length - 5} more` : ''}.`,
      },
    ];
  if (output.edits === undefined) return [];
  const read = canonicalEdits(output.edits);
  return read.ok ? [] : read.flags;
}

/** Why building the candidate's tree failed: its patch did not apply, or git refused its files. */
export interface BuildFailure {
  readonly stage: 'apply' | 'build';
  readonly reason: string;
}

export const doesNotApplyRule: FlagRule<BuildFailure> = {
  id: 'does-not-apply',
  scope: 'output',
  description: 'A patch that does not apply at its base commit.',
  check: ({ stage, reason }) =>
    stage === 'apply'
      ? [{ rule: 'does-not-apply', message: `The patch does not apply at its base: ${reason}` }]
      : [],
};

export const treeBuildFailedRule: FlagRule<BuildFailure> = {
  id: 'tree-build-failed',
  scope: 'output',
  description: "The candidate's files could not be turned into a git tree.",
  check: ({ stage, reason }) =>
    stage === 'build'
      ? [
          {
            rule: 'tree-build-failed',
            message: `The candidate's files could not be turned into a tree: ${reason}`,
          },
        ]
      : [],
};

/** A failed output's rules (the first that fires is its only flag). */
export const FAILURE_RULES: readonly FlagRule<OutputInput>[] = [
  needsFilesRule,
  sessionStuckRule,
  workerFailedRule,
];

/** The rules of a worker's output, as the registry lists them. */
export const OUTPUT_RULES: readonly AnyFlagRule[] = [
  ...FAILURE_RULES,
  duplicatePathRule,
  doesNotApplyRule,
  treeBuildFailedRule,
];
