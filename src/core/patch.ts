import { createHash } from 'node:crypto';
import { addedLines, newPathOf, oldPathOf, readUnifiedDiff, removedCount } from './unified-diff.js';
import type { RedFlag } from './voting/types.js';

/** Unified-diff facts: the files a patch touches, its size, a layout-free key. Pure functions over patch text. */

export interface PatchFile {
  /** Path before the change (undefined when the file is created). */
  readonly oldPath: string | undefined;
  /** Path after the change (undefined when the file is deleted). */
  readonly newPath: string | undefined;
  readonly added: readonly string[];
  readonly removed: number;
}

/** The files a `git diff` style patch touches, with their added lines. */
export function parsePatch(patch: string): PatchFile[] {
  return readUnifiedDiff(patch).map((section) => ({
    oldPath: oldPathOf(section),
    newPath: newPathOf(section),
    added: addedLines(section),
    removed: removedCount(section),
  }));
}

/** Paths a patch touches, old and new, without duplicates. */
export function touchedPaths(files: readonly PatchFile[]): string[] {
  return [
    ...new Set(
      files.flatMap((f) => [f.oldPath, f.newPath]).filter((p): p is string => p !== undefined),
    ),
  ];
}

export interface PatchRuleOptions {
  /** Most changed lines (added + removed) a minimal subtask's patch may have. */
  readonly maxChangedLines?: number;
}

/**
 * The red flags a patch's text decides: an empty patch, and one over the changed-line limit. Paths,
 * modes, scope and contents are judged on the tree the candidate produces
 * (`candidate-policy.ts`), never on a diff's headers.
 */
export function patchRedFlags(patch: string, options: PatchRuleOptions = {}): RedFlag[] {
  const files = parsePatch(patch);
  if (files.length === 0)
    return [{ rule: 'empty-patch', message: 'The candidate changes nothing.' }];
  const changed = files.reduce((n, f) => n + f.added.length + f.removed, 0);
  if (options.maxChangedLines !== undefined && changed > options.maxChangedLines)
    return [
      {
        rule: 'oversized',
        message: `The patch changes ${changed} lines, over the limit of ${options.maxChangedLines} for one minimal subtask.`,
      },
    ];
  return [];
}

/**
 * A vote key for a patch that does not depend on its layout: `index` lines and hunk positions
 * dropped, trailing whitespace stripped, files sorted by path. The fallback when no tree hash can
 * be computed.
 */
export function normalizedPatchKey(patch: string): string {
  const sections = parsePatch(patch)
    .map(
      (f) =>
        `${f.oldPath ?? '/dev/null'}→${f.newPath ?? '/dev/null'}\n${f.added.map((l) => l.trimEnd()).join('\n')}\n-${f.removed}`,
    )
    .sort();
  return `diff:${createHash('sha256').update(sections.join('\n\0\n')).digest('hex')}`;
}
