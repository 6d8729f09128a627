/**
 * Comment- and whitespace-normalised source text, for languages the project has no parser for:
 * comments are dropped and whitespace is collapsed outside string literals, so two samples that
 * differ only in layout and comments have the same text. Languages where indentation is syntax
 * (Python, YAML) keep each line's indentation depth (not its width). Unknown kinds of file are
 * compared by their whitespace-normalised text.
 */

interface Syntax {
  readonly line: readonly string[];
  readonly block: readonly (readonly [string, string])[];
  readonly quotes: readonly string[];
  /** Indentation is syntax: keep each line's depth. */
  readonly indented: boolean;
}

const C_LIKE: Syntax = {
  line: ['//'],
  block: [['/*', '*/']],
  quotes: ['"', "'", '`'],
  indented: false,
};
const HASH: Syntax = { line: ['#'], block: [], quotes: ['"', "'"], indented: false };
const PYTHON: Syntax = {
  line: ['#'],
  block: [],
  quotes: ['"""', "'''", '"', "'"],
  indented: true,
};
const YAML: Syntax = { line: ['#'], block: [], quotes: ['"', "'"], indented: true };
const DASHES: Syntax = { line: ['--'], block: [], quotes: ['"', "'"], indented: false };
const CSS: Syntax = { line: [], block: [['/*', '*/']], quotes: ['"', "'"], indented: false };
const HTML: Syntax = { line: [], block: [['<!--', '-->']], quotes: [], indented: false };

const BY_EXTENSION: Readonly<Record<string, Syntax>> = {
  // Scripts that did not parse.
  ts: C_LIKE,
  tsx: C_LIKE,
  mts: C_LIKE,
  cts: C_LIKE,
  js: C_LIKE,
  jsx: C_LIKE,
  mjs: C_LIKE,
  cjs: C_LIKE,
  json: C_LIKE,
  c: C_LIKE,
  h: C_LIKE,
  cc: C_LIKE,
  cpp: C_LIKE,
  hpp: C_LIKE,
  cs: C_LIKE,
  java: C_LIKE,
  kt: C_LIKE,
  go: C_LIKE,
  rs: C_LIKE,
  swift: C_LIKE,
  scala: C_LIKE,
  dart: C_LIKE,
  php: C_LIKE,
  css: CSS,
  scss: C_LIKE,
  less: C_LIKE,
  html: HTML,
  xml: HTML,
  svg: HTML,
  py: PYTHON,
  pyi: PYTHON,
  yaml: YAML,
  yml: YAML,
  sh: HASH,
  bash: HASH,
  rb: HASH,
  r: HASH,
  pl: HASH,
  toml: HASH,
  ini: { ...HASH, line: ['#', ';'] },
  cfg: HASH,
  sql: DASHES,
  lua: DASHES,
  hs: DASHES,
};

/** The extension of a path, lower case, without the dot (`''` when none). */
export function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? (name === 'Makefile' ? 'make' : '') : name.slice(dot + 1).toLowerCase();
}

/** Characters next to which a space never matters (operators and brackets). */
const PUNCTUATION = /[()[\]{},;:=+\-*/%<>!&|^~?.@]/;

/**
 * `text` with comments removed and whitespace normalised outside string literals, for the language
 * its `path` names. Text in an unknown language has its whitespace runs collapsed.
 */
export function normalizeSourceText(path: string, text: string): string {
  const syntax = BY_EXTENSION[extensionOf(path)];
  if (syntax === undefined) return text.replace(/\s+/g, ' ').trim();
  const out = new NormalizedLines();
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === '\n') {
      out.endLine();
      i += 1;
      continue;
    }
    if (/\s/.test(ch)) {
      out.whiteSpace(ch);
      i += 1;
      continue;
    }
    const lineCommentEnd = lineCommentEndAt(syntax, text, i);
    if (lineCommentEnd !== undefined) {
      i = lineCommentEnd;
      continue;
    }
    const blockComment = blockCommentAt(syntax, text, i);
    if (blockComment !== undefined) {
      i += blockComment.length;
      // A block comment across lines still ends the line it started on.
      if (blockComment.includes('\n') && syntax.indented) out.endLine();
      else out.gap();
      continue;
    }
    // A string literal is kept whole; any other character is a token of its own.
    const end = stringLiteralEndAt(syntax, text, i) ?? i + 1;
    out.emit(text.slice(i, end));
    i = end;
  }
  out.endLine();
  return syntax.indented ? indentByDepth(out.lines, out.depths) : out.lines.join(' ');
}

/**
 * The normalised text as it is written, line by line: tokens joined by one space where a space
 * separated them and it can matter, blank lines dropped, each line's indentation width kept apart.
 */
class NormalizedLines {
  readonly lines: string[] = [];
  /** The indentation width of each of `lines` (a tab counts 4). */
  readonly depths: number[] = [];
  #line = '';
  #space = false;
  #atLineStart = true;
  #indent = 0;

  /** A white-space character other than a line feed: indentation at a line's start, else a gap. */
  whiteSpace(ch: string): void {
    if (this.#atLineStart && this.#line === '') this.#indent += ch === '\t' ? 4 : 1;
    else this.#space = true;
  }

  /** What separates two tokens (white space, a comment): a space before the next, where it matters. */
  gap(): void {
    this.#space = true;
  }

  emit(s: string): void {
    if (
      this.#space &&
      this.#line !== '' &&
      !PUNCTUATION.test(this.#line.at(-1) ?? '') &&
      !PUNCTUATION.test(s[0] ?? '')
    )
      this.#line += ' ';
    this.#space = false;
    this.#atLineStart = false;
    this.#line += s;
  }

  endLine(): void {
    if (this.#line !== '') {
      this.lines.push(this.#line);
      this.depths.push(this.#indent);
    }
    this.#line = '';
    this.#space = false;
    this.#atLineStart = true;
    this.#indent = 0;
  }
}

/** Where a line comment starting at `i` ends (its line feed, or the text's end); undefined if none starts there. */
function lineCommentEndAt(syntax: Syntax, text: string, i: number): number | undefined {
  for (const marker of syntax.line)
    if (text.startsWith(marker, i)) {
      const end = text.indexOf('\n', i);
      return end === -1 ? text.length : end;
    }
  return undefined;
}

/** The block comment starting at `i`, through its closing marker (or the text's end); undefined if none starts there. */
function blockCommentAt(syntax: Syntax, text: string, i: number): string | undefined {
  for (const [open, close] of syntax.block)
    if (text.startsWith(open, i)) {
      const end = text.indexOf(close, i + open.length);
      return text.slice(i, end === -1 ? text.length : end + close.length);
    }
  return undefined;
}

/**
 * The index after the string literal starting at `i` (its closing quote, or where a line feed
 * ends a one-line literal, or the text's end); undefined if none starts there.
 */
function stringLiteralEndAt(syntax: Syntax, text: string, i: number): number | undefined {
  for (const quote of syntax.quotes)
    if (text.startsWith(quote, i)) {
      let j = i + quote.length;
      while (j < text.length && !text.startsWith(quote, j)) {
        if (text[j] === '\\') j += 1;
        else if (text[j] === '\n' && quote.length === 1 && quote !== '`') break;
        j += 1;
      }
      return Math.min(text.length, j + quote.length);
    }
  return undefined;
}

/** Lines indented by depth, one tab a level: each distinct width on the stack of open blocks is one level. */
function indentByDepth(lines: readonly string[], depths: readonly number[]): string {
  const stack: number[] = [0];
  return lines
    .map((text, n) => {
      const width = depths[n] ?? 0;
      while (stack.length > 1 && width < (stack.at(-1) ?? 0)) stack.pop();
      if (width > (stack.at(-1) ?? 0)) stack.push(width);
      return `${'\t'.repeat(stack.length - 1)}${text}`;
    })
    .join('\n');
}
