import { createHash } from 'node:crypto';
import { inScope, unsafePathReason } from './paths.js';
import type { RedFlag } from './voting/types.js';

/**
 * Unified-diff facts and the code-candidate red flags of ARCHITECTURE.md §4: empty patch, paths
 * outside the repository or into `.git/`, files outside the leaf's declared scope, oversized
 * diffs, likely secrets. Pure functions over patch text.
 */

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

const SECRET_LINE: readonly RegExp[] = [
  /AIza[0-9A-Za-z_-]{35}/,
  /gh[pousr]_[0-9A-Za-z]{36}/,
  /github_pat_[0-9A-Za-z_]{40,}/,
  /AKIA[0-9A-Z]{16}/,
  /-----BEGIN (?:RSA |EC |OPENSSH |DSA )?PRIVATE KEY-----/,
  /xox[baprs]-[0-9A-Za-z-]{10,}/,
];

export interface PatchRuleOptions {
  /** Paths the leaf may touch; empty or undefined means anywhere in the repository. */
  readonly scope?: readonly string[];
  /** Most changed lines (added + removed) a minimal subtask's patch may have. */
  readonly maxChangedLines?: number;
}

/** Every rule-based red flag for a patch; empty when it is clean. Whether it applies is checked by the workspace. */
export function patchRedFlags(patch: string, options: PatchRuleOptions = {}): RedFlag[] {
  const files = parsePatch(patch);
  if (files.length === 0)
    return [{ rule: 'empty-patch', message: 'The candidate changes nothing.' }];
  const flags: RedFlag[] = [];
  const paths = touchedPaths(files);
  for (const path of paths) {
    const reason = unsafePathReason(path);
    if (reason !== undefined)
      flags.push({
        rule: 'unsafe-path',
        message: `The patch writes ${JSON.stringify(path)}: ${reason}.`,
      });
  }
  const scope = options.scope ?? [];
  if (scope.length > 0) {
    const outside = paths.filter((p) => unsafePathReason(p) === undefined && !inScope(p, scope));
    if (outside.length > 0)
      flags.push({
        rule: 'out-of-scope',
        message: `The patch touches ${outside.slice(0, 5).join(', ')}, outside the subtask's files (${scope.join(', ')}).`,
      });
  }
  const changed = files.reduce((n, f) => n + f.added.length + f.removed, 0);
  if (options.maxChangedLines !== undefined && changed > options.maxChangedLines)
    flags.push({
      rule: 'oversized',
      message: `The patch changes ${changed} lines, over the limit of ${options.maxChangedLines} for one minimal subtask.`,
    });
  const marked = files.find((f) => f.added.some((line) => /^(<{7}|>{7})( |$)/.test(line)));
  if (marked !== undefined)
    flags.push({
      rule: 'conflict-markers',
      message: `The patch leaves conflict markers in ${marked.newPath ?? 'a file'}.`,
    });
  const secretFile = files.find((f) =>
    f.added.some((line) => SECRET_LINE.some((re) => re.test(line))),
  );
  if (secretFile !== undefined)
    flags.push({
      rule: 'secret',
      message: `The patch adds what looks like a credential to ${secretFile.newPath ?? secretFile.oldPath ?? 'a file'}.`,
    });
  return flags;
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
