import { createHash } from 'node:crypto';
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

const DIFF_HEADER = /^diff --git (\S+|"(?:[^"\\]|\\.)*") (\S+|"(?:[^"\\]|\\.)*")$/;

/** The files a `git diff` style patch touches, with their added lines. */
export function parsePatch(patch: string): PatchFile[] {
  const files: {
    oldPath: string | undefined;
    newPath: string | undefined;
    added: string[];
    removed: number;
  }[] = [];
  let current: (typeof files)[number] | undefined;
  for (const line of patch.split('\n')) {
    const header = DIFF_HEADER.exec(line);
    if (header !== null) {
      current = {
        oldPath: stripPrefix(unquote(header[1] as string)),
        newPath: stripPrefix(unquote(header[2] as string)),
        added: [],
        removed: 0,
      };
      files.push(current);
      continue;
    }
    if (line.startsWith('--- ') && current === undefined) {
      current = { oldPath: undefined, newPath: undefined, added: [], removed: 0 };
      files.push(current);
    }
    if (current === undefined) continue;
    if (line.startsWith('--- ')) current.oldPath = pathOf(line.slice(4));
    else if (line.startsWith('+++ ')) current.newPath = pathOf(line.slice(4));
    else if (line.startsWith('new file mode')) current.oldPath = undefined;
    else if (line.startsWith('deleted file mode')) current.newPath = undefined;
    else if (line.startsWith('+')) current.added.push(line.slice(1));
    else if (line.startsWith('-')) current.removed += 1;
  }
  return files;
}

function pathOf(spec: string): string | undefined {
  const path = unquote(spec.split('\t')[0] as string);
  return path === '/dev/null' ? undefined : stripPrefix(path);
}

function stripPrefix(path: string): string {
  return path.startsWith('a/') || path.startsWith('b/') ? path.slice(2) : path;
}

function unquote(path: string): string {
  if (!path.startsWith('"')) return path;
  return path.slice(1, -1).replace(/\\(.)/g, (_m, c: string) => ({ n: '\n', t: '\t' })[c] ?? c);
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
