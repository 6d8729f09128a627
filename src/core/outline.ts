/**
 * A source file's top-level definitions (signatures, exports), for the repository map a model is
 * shown: TS/JS and Python by their structure, other languages by the shape of their definition
 * lines. A line scanner, not a parser: it may miss a definition written in an unusual way, never
 * invents one, and never throws on odd input.
 */

export type OutlineLanguage = 'js' | 'python' | 'generic';

const JS = /\.(?:[cm]?[jt]sx?|d\.ts)$/i;
const PYTHON = /\.pyi?$/i;
const GENERIC =
  /\.(?:go|rs|java|kt|kts|scala|swift|c|h|cc|cpp|cxx|hpp|hh|cs|rb|php|sh|bash|zsh|lua|dart|ex|exs|erl|hs|ml|mli|r|jl|zig|nim|pl|pm|groovy|fs|fsx|vb|sol|proto|graphql|gql)$/i;

/** The outline language of a path, or undefined for files that are not source code. */
export function languageOf(path: string): OutlineLanguage | undefined {
  if (JS.test(path)) return 'js';
  if (PYTHON.test(path)) return 'python';
  if (GENERIC.test(path)) return 'generic';
  return undefined;
}

const MAX_SIGNATURE = 160;

/**
 * The definitions of `content`, one signature per entry; members of a top-level class or interface
 * are indented by two spaces. At most `maxEntries`, in file order.
 */
export function outline(path: string, content: string, maxEntries = 40): string[] {
  const language = languageOf(path);
  const entries =
    language === 'js'
      ? jsOutline(content)
      : language === 'python'
        ? pythonOutline(content)
        : language === 'generic'
          ? genericOutline(content)
          : [];
  return entries.slice(0, maxEntries);
}

/** A line as the scanner saw it: its text, the brace depth at its start, and whether it starts inside a comment or string. */
interface ScannedLine {
  readonly text: string;
  readonly depth: number;
  readonly inside: boolean;
}

/**
 * Brace depth per line of C-family source, skipping braces in comments, strings, template
 * literals (with `${…}` nesting) and regular expression literals (recognised by what precedes them).
 */
function scanBraces(content: string): ScannedLine[] {
  const lines: ScannedLine[] = [];
  let depth = 0;
  let mode: 'code' | 'line' | 'block' | "'" | '"' | '`' | 'regex' = 'code';
  const templates: number[] = []; // brace depth at each open `${`
  let lineStart = 0;
  let lineDepth = 0;
  let lineInside = false;
  let previous = ''; // last non-space code character
  for (let i = 0; i <= content.length; i++) {
    const c = content[i] ?? '\n';
    if (c === '\n') {
      lines.push({ text: content.slice(lineStart, i), depth: lineDepth, inside: lineInside });
      if (mode === 'line' || mode === "'" || mode === '"' || mode === 'regex') mode = 'code';
      lineStart = i + 1;
      lineDepth = depth;
      lineInside = mode !== 'code';
      continue;
    }
    switch (mode) {
      case 'line':
        break;
      case 'block':
        if (c === '*' && content[i + 1] === '/') {
          mode = 'code';
          i++;
        }
        break;
      case "'":
      case '"':
        if (c === '\\') i++;
        else if (c === mode) mode = 'code';
        break;
      case 'regex':
        if (c === '\\') i++;
        else if (c === '/') mode = 'code';
        break;
      case '`':
        if (c === '\\') i++;
        else if (c === '`') mode = 'code';
        else if (c === '$' && content[i + 1] === '{') {
          templates.push(depth);
          depth++;
          i++;
          mode = 'code';
        }
        break;
      case 'code':
        if (c === '/' && content[i + 1] === '/') mode = 'line';
        else if (c === '/' && content[i + 1] === '*') {
          mode = 'block';
          i++;
        } else if (c === "'" || c === '"' || c === '`') mode = c;
        else if (c === '/' && (previous === '' || '(,=:[!&|?{};+-*%<>~^'.includes(previous)))
          mode = 'regex';
        else if (c === '{') depth++;
        else if (c === '}') {
          depth = Math.max(0, depth - 1);
          if (templates.length > 0 && templates[templates.length - 1] === depth) {
            templates.pop();
            mode = '`';
          }
        }
        if (!/\s/.test(c)) previous = c;
        break;
    }
  }
  return lines;
}

const JS_DEFINITION =
  /^(?:export\s+(?:default\s+)?)?(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\b|class\b|interface\b|type\s+\w|enum\b|const\b|let\b|var\b|namespace\b|module\b)/;
const JS_EXPORT_LIST = /^export\s*(?:\{|\*|=|default\b)|^module\.exports\b|^exports\.\w+\s*=/;
const JS_MEMBER =
  /^(?:(?:public|protected|static|readonly|async|abstract|override|get|set|declare)\s+)*\*?[A-Za-z_$][\w$]*\??\s*[(<:]/;
const JS_CONTAINER = /\b(?:class|interface|enum)\b/;

function jsOutline(content: string): string[] {
  const lines = scanBraces(content);
  const out: string[] = [];
  let container = false; // the depth-1 block is a class, interface or enum body
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as ScannedLine;
    if (line.inside) continue;
    const text = line.text.trim();
    if (line.depth === 0) {
      if (JS_DEFINITION.test(text) || JS_EXPORT_LIST.test(text)) {
        out.push(
          signature(lines, i, JS_EXPORT_LIST.test(text) && !/^export\s+default\b/.test(text)),
        );
        container = JS_CONTAINER.test(text.split(/[{=]/)[0] ?? '');
      } else if (text !== '') container = false;
    } else if (line.depth === 1 && container && JS_MEMBER.test(text) && !isKeywordCall(text)) {
      out.push(`  ${signature(lines, i, false)}`);
    }
  }
  return out;
}

/** `if (…)`, `return (…)` and the like look like members to the pattern; they are statements. */
function isKeywordCall(text: string): boolean {
  return /^(?:if|for|while|switch|return|catch|super|this|await|throw|new|typeof|delete|void)\b/.test(
    text,
  );
}

/**
 * The signature starting at line `i`: joined with the following lines while brackets are open (a
 * parameter list over several lines), cut before the body's `{` (or an arrow's body) unless
 * `whole`, shortened to {@link MAX_SIGNATURE} characters.
 */
function signature(lines: readonly ScannedLine[], i: number, whole: boolean): string {
  let text = '';
  let open = 0;
  for (let j = i; j < lines.length && j < i + 8; j++) {
    const part = (lines[j] as ScannedLine).text.trim();
    text = text === '' ? part : `${text} ${part}`;
    for (const c of part) {
      if (c === '(' || c === '[' || c === '<') open++;
      else if ((c === ')' || c === ']' || c === '>') && open > 0) open--;
    }
    if (open === 0) break;
  }
  if (!whole) text = cutBody(text);
  text = text.replace(/\s+/g, ' ').replace(/[\s;,]+$/, '');
  return text.length > MAX_SIGNATURE ? `${text.slice(0, MAX_SIGNATURE - 1)}…` : text;
}

/** Drops a body: everything from the first `{` outside brackets, or after `=>`, or an initialiser's value past 60 characters. */
function cutBody(text: string): string {
  let open = 0;
  for (let k = 0; k < text.length; k++) {
    const c = text[k] as string;
    if (c === '(' || c === '[') open++;
    else if ((c === ')' || c === ']') && open > 0) open--;
    else if (open === 0 && c === '{' && k > 0) {
      const head = text.slice(0, k).trimEnd();
      // `type X = {…}` and `const x = {…}` keep a marker that a literal follows.
      return /[=:]$/.test(head) ? `${head} {…}` : head;
    } else if (open === 0 && c === '=' && text[k + 1] === '>') return text.slice(0, k + 2);
  }
  return text;
}

const PY_DEFINITION = /^(?:async\s+def|def|class)\s+\w/;
const PY_CONSTANT = /^(?:[A-Z_][A-Z0-9_]*|__all__)\s*(?::[^=]+)?=/;

function pythonOutline(content: string): string[] {
  const lines = content.split('\n');
  const out: string[] = [];
  let inClass = false;
  let memberIndent: number | undefined;
  let quote: string | undefined; // inside a triple-quoted string
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] as string).replace(/\r$/, '');
    if (quote !== undefined) {
      if (countOf(raw, quote) % 2 === 1) quote = undefined;
      continue;
    }
    const opened = ['"""', "'''"].find((q) => countOf(raw, q) % 2 === 1);
    const text = raw.trim();
    const indent = raw.length - raw.trimStart().length;
    if (opened !== undefined && !PY_DEFINITION.test(text)) {
      quote = opened;
      continue;
    }
    if (text === '' || text.startsWith('#')) continue;
    if (indent === 0) {
      inClass = /^class\s/.test(text);
      memberIndent = undefined;
      if (PY_DEFINITION.test(text)) out.push(pySignature(lines, i));
      else if (PY_CONSTANT.test(text)) out.push(shorten(text));
    } else if (inClass) {
      memberIndent ??= indent;
      const member = /^(?:async\s+def|def)\s+(\w+)/.exec(text);
      if (
        indent === memberIndent &&
        member !== null &&
        (!(member[1] as string).startsWith('_') || member[1] === '__init__')
      )
        out.push(`  ${pySignature(lines, i)}`);
    }
    if (opened !== undefined) quote = opened;
  }
  return out;
}

function pySignature(lines: readonly string[], i: number): string {
  let text = '';
  let open = 0;
  for (let j = i; j < lines.length && j < i + 8; j++) {
    const part = (lines[j] as string).trim();
    text = text === '' ? part : `${text} ${part}`;
    for (const c of part) {
      if (c === '(' || c === '[') open++;
      else if ((c === ')' || c === ']') && open > 0) open--;
    }
    if (open === 0) break;
  }
  return shorten(
    text
      .replace(/:\s*(?:#.*)?$/, '')
      .replace(/\(\s+/g, '(')
      .replace(/,?\s+\)/g, ')'),
  );
}

const GENERIC_DEFINITION =
  /^(?:(?:pub(?:\([^)]*\))?|export|public|protected|internal|private|static|abstract|final|sealed|open|data|async|unsafe|extern|inline|override)\s+)*(?:func|fn|def|defp|defmodule|class|struct|enum|trait|impl|interface|type|module|package|object|record|sub|function|procedure|union|typedef|macro_rules!|let|const|val|var)\b/;
/** A C-family function definition's head: a return type, a name, an open parameter list, no `;`. */
const C_FUNCTION = /^[A-Za-z_][\w\s*&:<>,[\]]*[\s*&]\**~?[A-Za-z_][\w:]*\s*\([^;]*$/;

function genericOutline(content: string): string[] {
  const out: string[] = [];
  for (const raw of content.split('\n')) {
    if (raw === '' || /^\s/.test(raw)) continue;
    const text = raw.trim();
    if (/^(?:\/\/|#|\/\*|\*|--|;|%)/.test(text)) continue;
    if (/^(?:return|if|else|for|while|switch|case)\b/.test(text)) continue;
    if (GENERIC_DEFINITION.test(text) || C_FUNCTION.test(text))
      out.push(shorten(cutBody(text).replace(/[\s;]+$/, '')));
  }
  return out;
}

function countOf(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length))
    count++;
  return count;
}

function shorten(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > MAX_SIGNATURE ? `${t.slice(0, MAX_SIGNATURE - 1)}…` : t;
}
