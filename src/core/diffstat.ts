/** Per-file line counts of a unified diff (`git diff` output), like `git diff --stat`. */
export interface FileStat {
  readonly path: string;
  readonly added: number;
  readonly removed: number;
  readonly binary: boolean;
}

export function fileStats(diff: string): FileStat[] {
  const stats: { path: string; added: number; removed: number; binary: boolean }[] = [];
  let current: (typeof stats)[number] | undefined;
  let inHunk = false;
  for (const line of diff.split('\n')) {
    const header = /^diff --git a\/(.+?) b\/(.+)$/.exec(line);
    if (header !== null) {
      current = { path: header[2] as string, added: 0, removed: 0, binary: false };
      stats.push(current);
      inHunk = false;
      continue;
    }
    if (current === undefined) continue;
    if (line.startsWith('@@')) inHunk = true;
    else if (!inHunk && (line.startsWith('Binary files ') || line === 'GIT binary patch'))
      current.binary = true;
    else if (inHunk && line.startsWith('+')) current.added += 1;
    else if (inHunk && line.startsWith('-')) current.removed += 1;
  }
  return stats;
}

/**
 * A `git diff --stat`-like summary: one line per file (at most `maxFiles`, the rest counted), then
 * the totals.
 */
export function diffstat(diff: string, maxFiles = 20): string {
  const stats = fileStats(diff);
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
