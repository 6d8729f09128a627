import type * as TS from 'typescript';
import { bindFile, localSymbol } from './local-names.js';

/**
 * JavaScript and TypeScript as syntax trees, through the TypeScript compiler API (loaded on first
 * use: a process that compares no code never pays for it). A file's normal form is its tree written
 * as nested kinds and values, without comments, layout, quote style or number spelling. Its
 * alpha-normal form also writes every local name (a parameter, or anything declared inside a
 * function or block) as its order of first appearance, so renaming locals does not change it.
 * Names that can be seen from outside (module-level declarations, properties, exports) are kept.
 */

type Ts = typeof TS;
let loading: Promise<Ts> | undefined;
/** The compiler, loaded once. */
export function loadTypeScript(): Promise<Ts> {
  loading ??= import('typescript').then((m) => (m as unknown as { default?: Ts }).default ?? m);
  return loading;
}

const SCRIPT_EXTENSIONS: Readonly<Record<string, string>> = {
  ts: 'ts',
  mts: 'mts',
  cts: 'cts',
  tsx: 'tsx',
  js: 'js',
  mjs: 'mjs',
  cjs: 'cjs',
  jsx: 'jsx',
};

/** Whether a file of this extension is parsed as a syntax tree. */
export function isScript(extension: string): boolean {
  return SCRIPT_EXTENSIONS[extension] !== undefined;
}

export interface ScriptForms {
  /** Comments, layout and spelling removed. */
  readonly normal: string;
  /** The same with local names replaced by their order of appearance. */
  readonly alpha: string;
}

/**
 * The normal forms of script files, each parsed and bound on its own (a local is declared in the
 * file itself; its scope is the compiler's binder's, not a guess). A file with syntax errors is left
 * out of the result: its caller compares its text.
 */
export async function scriptForms(
  files: readonly { readonly path: string; readonly content: string }[],
): Promise<Map<string, ScriptForms>> {
  const out = new Map<string, ScriptForms>();
  if (files.length === 0) return out;
  const ts = await loadTypeScript();
  // A file's forms depend on its kind and text alone (a local is declared in the file itself), and
  // candidates share most of their files: every candidate of a subtask has the same base, and
  // agreeing candidates the same answer, so a file already seen is not parsed again.
  const fresh: { readonly path: string; readonly content: string; readonly key: string }[] = [];
  for (const f of files) {
    const key = `${scriptKind(ts, f.path)}\0${f.content}`;
    const known = FORMS.get(key);
    if (known === undefined) {
      fresh.push({ ...f, key });
      continue;
    }
    remember(key, known);
    if (known !== null) out.set(f.path, known);
  }
  if (fresh.length === 0) return out;
  for (const file of fresh) {
    const forms = formsOf(ts, file.path, file.content);
    remember(file.key, forms);
    if (forms !== null) out.set(file.path, forms);
  }
  return out;
}

/**
 * The compiler options the files are parsed and bound with, and a program of no files, made once:
 * its `getSyntacticDiagnostics` reads only the file it is given (and, for JavaScript, also reports
 * TypeScript-only syntax, which the parser alone does not).
 */
let setUp: { readonly options: TS.CompilerOptions; readonly syntax: TS.Program } | undefined;

function shared(ts: Ts): { readonly options: TS.CompilerOptions; readonly syntax: TS.Program } {
  if (setUp !== undefined) return setUp;
  const options = parseOptions(ts);
  setUp = { options, syntax: ts.createProgram({ rootNames: [], options, host: emptyHost() }) };
  return setUp;
}

/** The compiler options a file is parsed and bound with (no library, no resolution, any syntax). */
export function parseOptions(ts: Ts): TS.CompilerOptions {
  return {
    noLib: true,
    noResolve: true,
    allowJs: true,
    checkJs: false,
    noEmit: true,
    types: [],
    jsx: ts.JsxEmit.Preserve,
    target: ts.ScriptTarget.ESNext,
    module: ts.ModuleKind.ESNext,
  };
}

/** One file's forms, from its syntax tree and its binder's scopes; null when it does not parse. */
function formsOf(ts: Ts, path: string, content: string): ScriptForms | null {
  // A virtual name: nothing is read from the disk.
  const name = `/maker/${path}`;
  const source = ts.createSourceFile(
    name,
    content,
    ts.ScriptTarget.ESNext,
    true,
    scriptKind(ts, name),
  );
  const { options, syntax } = shared(ts);
  if (syntax.getSyntacticDiagnostics(source).length > 0) return null;
  bindFile(ts, source, options);
  return writeForms(ts, source);
}

function emptyHost(): TS.CompilerHost {
  return {
    getSourceFile: () => undefined,
    getDefaultLibFileName: () => '/maker-lib.d.ts',
    writeFile: () => undefined,
    getCurrentDirectory: () => '/',
    getCanonicalFileName: (name) => name,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: () => false,
    readFile: () => undefined,
  };
}

/** Files' forms by kind and text (null: a syntax error), the most recently used last. */
const FORMS = new Map<string, ScriptForms | null>();
const FORMS_MAX_FILES = 256;
const FORMS_MAX_CHARS = 64 * 1024;

function remember(key: string, forms: ScriptForms | null): void {
  if (key.length > FORMS_MAX_CHARS) return;
  FORMS.delete(key);
  FORMS.set(key, forms);
  if (FORMS.size > FORMS_MAX_FILES) FORMS.delete(FORMS.keys().next().value as string);
}

function scriptKind(ts: Ts, name: string): TS.ScriptKind {
  if (/\.tsx$/.test(name)) return ts.ScriptKind.TSX;
  if (/\.jsx$/.test(name)) return ts.ScriptKind.JSX;
  if (/\.[cm]?js$/.test(name)) return ts.ScriptKind.JS;
  return ts.ScriptKind.TS;
}

/**
 * A tree as text, both forms in one walk: `(Kind child …)`, with identifiers' names, literals'
 * values and the few facts the parser keeps outside child nodes (an operator, `let` or `const`,
 * type-only imports). In the alpha form, local names are written as `$n` (the file bound).
 */
function writeForms(ts: Ts, root: TS.SourceFile): ScriptForms {
  const flagMask =
    ts.NodeFlags.Let |
    ts.NodeFlags.Const |
    ts.NodeFlags.Using |
    ts.NodeFlags.Namespace |
    ts.NodeFlags.NestedNamespace |
    ts.NodeFlags.GlobalAugmentation |
    ts.NodeFlags.OptionalChain;
  const locals = new Map<TS.Symbol, number>();
  const normal: string[] = [];
  const alpha: string[] = [];
  const both = (part: string) => {
    normal.push(part);
    alpha.push(part);
  };
  const visit = (node: TS.Node): void => {
    if (ts.isIdentifier(node)) {
      const name = `id:${node.text}`;
      normal.push(name);
      const local = localSymbol(ts, node);
      if (local === undefined) alpha.push(name);
      else {
        let index = locals.get(local);
        if (index === undefined) {
          index = locals.size;
          locals.set(local, index);
        }
        alpha.push(`$${index}`);
      }
      return;
    }
    const leaf = leafText(ts, node);
    if (leaf !== undefined) {
      both(leaf);
      return;
    }
    both(`(${node.kind}`);
    const flags = node.flags & flagMask;
    if (flags !== 0) both(`#${flags}`);
    const fields = node as unknown as Record<string, unknown>;
    for (const field of ['operator', 'token', 'keywordToken'])
      if (typeof fields[field] === 'number') both(`${field}=${fields[field]}`);
    for (const field of ['isTypeOnly', 'isExportEquals']) if (fields[field] === true) both(field);
    ts.forEachChild(node, visit);
    both(')');
  };
  visit(root);
  return { normal: normal.join(' '), alpha: alpha.join(' ') };
}

/** A leaf's text other than an identifier's (a literal's value), or undefined for a node with children. */
function leafText(ts: Ts, node: TS.Node): string | undefined {
  if (ts.isPrivateIdentifier(node)) return `#${node.text}`;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))
    return `str:${JSON.stringify(node.text)}`;
  if (ts.isNumericLiteral(node)) return `num:${String(Number(node.text.replace(/_/g, '')))}`;
  if (ts.isBigIntLiteral(node)) return `big:${node.text.replace(/_/g, '')}`;
  if (ts.isRegularExpressionLiteral(node)) return `re:${node.text}`;
  if (
    ts.isTemplateHead(node) ||
    ts.isTemplateMiddle(node) ||
    ts.isTemplateTail(node) ||
    node.kind === ts.SyntaxKind.JsxText
  ) {
    const text = (node as TS.LiteralLikeNode).text;
    if (node.kind === ts.SyntaxKind.JsxText) {
      const trimmed = text.replace(/\s+/g, ' ').trim();
      return trimmed === '' ? '' : `jsx:${JSON.stringify(trimmed)}`;
    }
    return `${node.kind}:${JSON.stringify(text)}`;
  }
  return node.kind >= ts.SyntaxKind.FirstToken && node.kind <= ts.SyntaxKind.LastToken
    ? `t${node.kind}`
    : undefined;
}
