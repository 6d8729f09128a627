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
// eslint-disable-next-line max-lines-per-function -- over 80 lines: to be split by job (#40)
export function normalizeSourceText(path: string, text: string): string {
  const syntax = BY_EXTENSION[extensionOf(path)];
  if (syntax === undefined) return text.replace(/\s+/g, ' ').trim();
  const lines: string[] = [];
  const depths: number[] = [];
  let line = '';
  let space = false;
  let atLineStart = true;
  let indent = 0;
  const endLine = () => {
    if (line !== '') {
      lines.push(line);
      depths.push(indent);
    }
    line = '';
    space = false;
    atLineStart = true;
    indent = 0;
  };
  const emit = (s: string) => {
    if (
      space &&
      line !== '' &&
      !PUNCTUATION.test(line.at(-1) ?? '') &&
      !PUNCTUATION.test(s[0] ?? '')
    )
      line += ' ';
    space = false;
    atLineStart = false;
    line += s;
  };
  let i = 0;
  outer: while (i < text.length) {
    const ch = text[i] as string;
    if (ch === '\n') {
      endLine();
      i += 1;
      continue;
    }
    if (/\s/.test(ch)) {
      if (atLineStart && line === '') indent += ch === '\t' ? 4 : 1;
      else space = true;
      i += 1;
      continue;
    }
    for (const marker of syntax.line)
      if (text.startsWith(marker, i)) {
        const end = text.indexOf('\n', i);
        i = end === -1 ? text.length : end;
        continue outer;
      }
    for (const [open, close] of syntax.block)
      if (text.startsWith(open, i)) {
        const end = text.indexOf(close, i + open.length);
        const skipped = text.slice(i, end === -1 ? text.length : end + close.length);
        i += skipped.length;
        // A block comment across lines still ends the line it started on.
        if (skipped.includes('\n') && syntax.indented) endLine();
        else space = true;
        continue outer;
      }
    for (const quote of syntax.quotes)
      if (text.startsWith(quote, i)) {
        let j = i + quote.length;
        while (j < text.length && !text.startsWith(quote, j)) {
          if (text[j] === '\\') j += 1;
          else if (text[j] === '\n' && quote.length === 1 && quote !== '`') break;
          j += 1;
        }
        const end = Math.min(text.length, j + quote.length);
        emit(text.slice(i, end));
        i = end;
        continue outer;
      }
    emit(ch);
    i += 1;
  }
  endLine();
  if (!syntax.indented) return lines.join(' ');
  // Indentation as depth: each distinct width on the stack of open blocks is one level.
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
