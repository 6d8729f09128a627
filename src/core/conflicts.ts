/**
 * Conflict markers as a model and a person read them. git labels its markers with whatever named
 * the merged sides (commit ids, for merges of commits): ids that change with every run, so a prompt
 * holding them never repeats, and a recorded run cannot be replayed. The labels are replaced with
 * names that say what each side is.
 */

/** What each side of a merge is called in its conflict markers. */
export interface ConflictLabels {
  readonly ours: string;
  readonly theirs: string;
  /** The common ancestor's section (`|||||||`, diff3 style). */
  readonly base?: string;
}

const MARKER = /^(<{7}|>{7}|\|{7})(?: [^\n]*)?$/gm;

/** One line, without characters that would end a marker line or confuse a reader. */
export function markerLabel(text: string, max = 120): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/**
 * `content` with every conflict marker line's label replaced: `<<<<<<<` by `labels.ours`,
 * `>>>>>>>` by `labels.theirs`, `|||||||` by `labels.base`. Lines that are not markers (exactly
 * seven marker characters at the start of a line, then a space or the line's end) are untouched.
 */
export function relabelConflictMarkers(content: string, labels: ConflictLabels): string {
  const base = labels.base ?? 'merge base';
  return content.replace(MARKER, (_line, marker: string) => {
    const label = marker[0] === '<' ? labels.ours : marker[0] === '>' ? labels.theirs : base;
    return `${marker} ${markerLabel(label)}`;
  });
}
