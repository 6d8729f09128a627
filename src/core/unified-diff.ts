/**
 * The one reader of unified diffs (`git diff` output, and the plain `---`/`+++` diffs models write).
 * Pure and total: any text gives sections, never an exception; what a consumer needs (paths, added
 * lines, sizes, hunks to apply) is derived from these sections, not read again from the text.
 *
 * A hunk is read as git reads it: its header's line counts say where it ends, so a `+++ x` or
 * `--- x` line inside a hunk is content, not a file header. Lines past a hunk's counts that are not
 * a header are kept as `stray` lines of their section (git refuses such a patch as corrupt; readers
 * that count lines may still count them).
 */

/** One `@@ -oldStart,oldCount +newStart,newCount @@` hunk and its lines, each with its prefix. */
export interface DiffHunk {
  readonly oldStart: number;
  readonly oldCount: number;
  readonly newStart: number;
  readonly newCount: number;
  /** Lines as written: ` ` context, `+` added, `-` removed, `\` a "No newline" marker; `''` is context. */
  readonly lines: readonly string[];
  /** Fewer lines than the header counts (the diff ended inside the hunk). */
  readonly short: boolean;
}

/** The forward half of a `GIT binary patch`: its method, the size it states, its base85 lines. */
export interface BinaryPatch {
  readonly method: 'literal' | 'delta';
  readonly size: number;
  readonly data: readonly string[];
}

/** One file's section. Paths have their `a/`/`b/` prefix removed and git's quoting undone. */
export interface DiffSection {
  /** The two paths of a `diff --git` line; undefined for a plain `---`/`+++` diff. */
  readonly gitPaths: readonly [string, string] | undefined;
  /** The `---` line's path: null when there is no such line, undefined for `/dev/null`. */
  readonly minusPath: string | null | undefined;
  /** The `+++` line's path: null when there is no such line, undefined for `/dev/null`. */
  readonly plusPath: string | null | undefined;
  readonly created: boolean;
  readonly deleted: boolean;
  readonly hunks: readonly DiffHunk[];
  /** `+` and `-` lines outside any hunk (past a hunk's counts, or with no hunk header). */
  readonly stray: readonly string[];
  /** A `Binary files … differ` line, or a `GIT binary patch`. */
  readonly binary: boolean;
  readonly binaryPatch: BinaryPatch | undefined;
}

const GIT_HEADER = /^diff --git (\S+|"(?:[^"\\]|\\.)*") (\S+|"(?:[^"\\]|\\.)*")$/;
const GIT_HEADER_SPACED = /^diff --git (a\/.+ b\/.+)$/;
const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
const BINARY_METHOD = /^(literal|delta) (\d+)$/;

interface Building {
  gitPaths: readonly [string, string] | undefined;
  minusPath: string | null | undefined;
  plusPath: string | null | undefined;
  created: boolean;
  deleted: boolean;
  hunks: DiffHunk[];
  stray: string[];
  binary: boolean;
  binaryPatch: BinaryPatch | undefined;
}

/** The sections of a unified diff, in order. */
export function readUnifiedDiff(text: string): DiffSection[] {
  // The text's last line end is not the start of one more (empty) line.
  const lines = (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
  const sections: Building[] = [];
  let current: Building | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const gitPaths = gitHeaderPaths(line);
    if (gitPaths !== undefined) {
      current = section(gitPaths);
      sections.push(current);
    } else if (line.startsWith('--- ') && startsPlainSection(current, lines[i + 1])) {
      current = section(undefined);
      sections.push(current);
      current.minusPath = headerPath(line.slice(4));
    } else if (current === undefined) {
      continue;
    } else if (HUNK_HEADER.test(line)) {
      const hunk = readHunk(lines, i);
      current.hunks.push(hunk);
      i += hunk.lines.length;
    } else if (line === 'GIT binary patch') {
      current.binary = true;
      i = readBinary(lines, i, current);
    } else readHeaderLine(line, current);
  }
  return sections;
}

/** What a line of a diff is, for showing it: a file header, a hunk header, added, removed, context. */
export type DiffLineKind = 'file' | 'hunk' | 'add' | 'del' | 'ctx';

/**
 * The kind of each line of `text` (split on line ends), read as {@link readUnifiedDiff} reads
 * it: within a hunk's counts a line is content whatever it starts with (a removed `-- note` is
 * `--- note`, not a file header).
 */
export function diffLineKinds(text: string): DiffLineKind[] {
  const lines = text.split('\n');
  const kinds: DiffLineKind[] = [];
  const content = (line: string): DiffLineKind =>
    line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : 'ctx';
  while (kinds.length < lines.length) {
    const at = kinds.length;
    const line = lines[at] as string;
    if (HUNK_HEADER.test(line)) {
      kinds.push('hunk', ...readHunk(lines, at).lines.map(content));
    } else kinds.push(/^(diff |---|\+\+\+)/.test(line) ? 'file' : content(line));
  }
  return kinds;
}

/**
 * The two paths of a `diff --git` line. Unquoted names with spaces are ambiguous ("a/x y b/x y");
 * as git does, the split that gives the same name twice is taken, else the first ` b/`.
 */
function gitHeaderPaths(line: string): readonly [string, string] | undefined {
  const plain = GIT_HEADER.exec(line);
  if (plain !== null) return [unquotePath(plain[1] as string), unquotePath(plain[2] as string)];
  const spaced = GIT_HEADER_SPACED.exec(line)?.[1];
  if (spaced === undefined) return undefined;
  const cuts = [...spaced.matchAll(/ b\//g)].map((m) => m.index);
  const same = cuts.find((at) => spaced.slice(2, at) === spaced.slice(at + 3));
  const at = same ?? cuts[0];
  if (at === undefined) return undefined;
  return [spaced.slice(2, at), spaced.slice(at + 3)];
}

function section(gitPaths: readonly [string, string] | undefined): Building {
  return {
    gitPaths,
    minusPath: null,
    plusPath: null,
    created: false,
    deleted: false,
    hunks: [],
    stray: [],
    binary: false,
    binaryPatch: undefined,
  };
}

/**
 * A `---` line starts a new plain section when no section is open, or when the open one already
 * has its file lines or hunks and the next line is its `+++`: a second file of a plain diff.
 */
function startsPlainSection(current: Building | undefined, next: string | undefined): boolean {
  if (current === undefined) return true;
  const used = current.hunks.length > 0 || current.plusPath !== null;
  return used && next?.startsWith('+++ ') === true;
}

function readHeaderLine(line: string, current: Building): void {
  if (line.startsWith('--- ') && current.minusPath === null && current.hunks.length === 0)
    current.minusPath = headerPath(line.slice(4));
  else if (line.startsWith('+++ ') && current.plusPath === null && current.hunks.length === 0)
    current.plusPath = headerPath(line.slice(4));
  else if (line.startsWith('new file mode')) current.created = true;
  else if (line.startsWith('deleted file mode')) current.deleted = true;
  else if (line.startsWith('Binary files ')) current.binary = true;
  else if (/^[-+]/.test(line)) current.stray.push(line);
}

/** The hunk whose header is at `at`: its lines up to its counts, and a "No newline" marker after. */
function readHunk(lines: readonly string[], at: number): DiffHunk {
  const header = HUNK_HEADER.exec(lines[at] as string) as RegExpExecArray;
  const oldCount = Number(header[2] ?? '1');
  const newCount = Number(header[4] ?? '1');
  let oldLeft = oldCount;
  let newLeft = newCount;
  const body: string[] = [];
  let i = at + 1;
  for (; i < lines.length && (oldLeft > 0 || newLeft > 0); i++) {
    const line = lines[i] as string;
    body.push(line);
    if (line.startsWith('+')) newLeft -= 1;
    else if (line.startsWith('-')) oldLeft -= 1;
    else if (!line.startsWith('\\')) {
      oldLeft -= 1;
      newLeft -= 1;
    }
  }
  const short = oldLeft > 0 || newLeft > 0;
  if (lines[i]?.startsWith('\\') === true) body.push(lines[i] as string);
  return {
    oldStart: Number(header[1]),
    oldCount,
    newStart: Number(header[3]),
    newCount,
    lines: body,
    short,
  };
}

/**
 * Reads a `GIT binary patch` at `at`: keeps its forward half and skips the reverse half after it.
 * Returns the index of the last line read.
 */
function readBinary(lines: readonly string[], at: number, current: Building): number {
  const method = BINARY_METHOD.exec(lines[at + 1] ?? '');
  if (method === null) return at;
  let j = at + 2;
  while (j < lines.length && lines[j] !== '') j++;
  current.binaryPatch ??= {
    method: method[1] as 'literal' | 'delta',
    size: Number(method[2]),
    data: lines.slice(at + 2, j),
  };
  if (BINARY_METHOD.test(lines[j + 1] ?? '')) {
    j += 2;
    while (j < lines.length && lines[j] !== '') j++;
  }
  return j;
}

/** A `---`/`+++` line's path (before any tab and timestamp); undefined for `/dev/null`. */
function headerPath(spec: string): string | undefined {
  const raw = spec.startsWith('"') ? spec : (spec.split('\t')[0] as string);
  const path = unquotePath(raw.trimEnd());
  return path === '/dev/null' ? undefined : path;
}

/** A path as git writes it: quoted with C escapes (octal for bytes) when needed, with `a/` or `b/`. */
function unquotePath(spec: string): string {
  const path = spec.startsWith('"') && spec.endsWith('"') ? unescapeC(spec.slice(1, -1)) : spec;
  return path.startsWith('a/') || path.startsWith('b/') ? path.slice(2) : path;
}

/** Pure JavaScript (no Buffer): the live view's page reads diffs with this module too. */
const UTF8 = new TextEncoder();

const ESCAPES: Record<string, number> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11 };

function unescapeC(body: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c !== '\\') {
      bytes.push(...UTF8.encode(c));
      continue;
    }
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1, i + 4));
    if (octal !== null) {
      bytes.push(parseInt(octal[0], 8) & 0xff);
      i += 3;
      continue;
    }
    const next = body[i + 1] ?? '';
    bytes.push(ESCAPES[next] ?? next.charCodeAt(0));
    i += 1;
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** The path a section's file has before the change; undefined when the section creates it. */
export function oldPathOf(s: DiffSection): string | undefined {
  if (s.created) return undefined;
  if (s.minusPath !== null) return s.minusPath;
  return s.gitPaths?.[0];
}

/** The path a section's file has after the change; undefined when the section deletes it. */
export function newPathOf(s: DiffSection): string | undefined {
  if (s.deleted) return undefined;
  if (s.plusPath !== null) return s.plusPath;
  return s.gitPaths?.[1];
}

/** Every added line's text (without its `+`), from hunks and stray lines, in order. */
export function addedLines(s: DiffSection): string[] {
  return [...s.hunks.flatMap((h) => h.lines), ...s.stray]
    .filter((l) => l.startsWith('+'))
    .map((l) => l.slice(1));
}

/** How many lines a section removes, from hunks and stray lines. */
export function removedCount(s: DiffSection): number {
  return [...s.hunks.flatMap((h) => h.lines), ...s.stray].filter((l) => l.startsWith('-')).length;
}

/** `before`'s lines with `hunks` applied in order; undefined when a context or removed line differs. */
export function applyHunks(
  before: readonly string[],
  hunks: readonly DiffHunk[],
): string[] | undefined {
  const after: string[] = [];
  let cursor = 0;
  for (const hunk of hunks) {
    const start = Math.max(0, hunk.oldStart - (hunk.oldCount === 0 ? 0 : 1));
    after.push(...before.slice(cursor, start));
    cursor = start;
    for (const line of hunk.lines) {
      if (line.startsWith('+')) after.push(line.slice(1));
      else if (!line.startsWith('\\')) {
        if (before[cursor] !== line.slice(1)) return undefined;
        if (!line.startsWith('-')) after.push(line.slice(1));
        cursor += 1;
      }
    }
  }
  after.push(...before.slice(cursor));
  return after;
}
