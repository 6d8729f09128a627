import { addedLines, newPathOf, oldPathOf, readUnifiedDiff, removedCount } from './unified-diff.js';

/** Per-file line counts of a unified diff (`git diff` output), like `git diff --stat`. */
export interface FileStat {
  readonly path: string;
  readonly added: number;
  readonly removed: number;
  readonly binary: boolean;
}

export function fileStats(diff: string): FileStat[] {
  return readUnifiedDiff(diff).map((section) => ({
    path: section.gitPaths?.[1] ?? newPathOf(section) ?? oldPathOf(section) ?? '',
    added: addedLines(section).length,
    removed: removedCount(section),
    binary: section.binary,
  }));
}

/**
 * `git diff --numstat -z` output as per-file line counts: `added\tremoved\tpath\0`, or for a rename
 * `added\tremoved\t\0old\0new\0` (the new path is the one counted, as {@link fileStats} does);
 * `-` counts mark a binary file.
 */
export function numstatStats(out: string): FileStat[] {
  const fields = out.split('\0');
  const stats: FileStat[] = [];
  for (let i = 0; i < fields.length; i++) {
    const m = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(fields[i] as string);
    if (m === null) continue;
    let path = m[3] as string;
    if (path === '') {
      path = fields[i + 2] ?? ''; // a rename: the old path, then the new one
      i += 2;
    }
    const binary = m[1] === '-';
    stats.push({
      path,
      added: binary ? 0 : Number(m[1]),
      removed: binary ? 0 : Number(m[2]),
      binary,
    });
  }
  return stats;
}

/**
 * A `git diff --stat`-like summary of a unified diff: one line per file (at most `maxFiles`, the
 * rest counted), then the totals.
 */
export function diffstat(diff: string, maxFiles = 20): string {
  return statSummary(fileStats(diff), maxFiles);
}

/** {@link diffstat} from per-file counts (a workspace's `fileStats`, without the patch text). */
export function statSummary(stats: readonly FileStat[], maxFiles = 20): string {
  if (stats.length === 0) return 'no files changed';
  const shown = stats.slice(0, maxFiles);
  const width = Math.max(...shown.map((s) => s.path.length));
  const most = Math.max(1, ...shown.map((s) => s.added + s.removed));
  const bar = (s: FileStat) => {
    const scale = Math.min(1, 40 / most);
    return `${'+'.repeat(Math.ceil(s.added * scale))}${'-'.repeat(Math.ceil(s.removed * scale))}`;
  };
  const lines = shown.map((s) =>
    s.binary
      ? ` ${s.path.padEnd(width)} | Bin`
      : ` ${s.path.padEnd(width)} | ${String(s.added + s.removed).padStart(4)} ${bar(s)}`,
  );
  if (stats.length > shown.length) lines.push(` … and ${stats.length - shown.length} more files`);
  const added = stats.reduce((a, s) => a + s.added, 0);
  const removed = stats.reduce((a, s) => a + s.removed, 0);
  lines.push(
    ` ${stats.length} file${stats.length === 1 ? '' : 's'} changed, ${added} insertion${added === 1 ? '' : 's'}(+), ${removed} deletion${removed === 1 ? '' : 's'}(-)`,
  );
  return lines.join('\n');
}
