import type * as TS from 'typescript';

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
 * The normal forms of script files, parsed together (so a name's scope is the compiler's, not a
 * guess). A file with syntax errors is left out of the result: its caller compares its text.
 */
export async function scriptForms(
  files: readonly { readonly path: string; readonly content: string }[],
): Promise<Map<string, ScriptForms>> {
  const out = new Map<string, ScriptForms>();
  if (files.length === 0) return out;
  const ts = await loadTypeScript();
  // A file's forms depend on its kind and text alone (a local is declared in the file itself), and
  // candidates share most of their files: every candidate of a subtask has the same base, and
  // agreeing candidates the same answer. Building a program and its checker is most of a vote's
  // CPU and garbage, so a file already seen is not parsed again.
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
  // Virtual, unique names: nothing is read from the disk.
  const names = new Map(fresh.map((f, i) => [`/maker-${i}/${f.path}`, f]));
  const options: TS.CompilerOptions = {
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
  const sources = new Map<string, TS.SourceFile>();
  for (const [name, file] of names)
    sources.set(
      name,
      ts.createSourceFile(name, file.content, ts.ScriptTarget.ESNext, true, scriptKind(ts, name)),
    );
  const host: TS.CompilerHost = {
    getSourceFile: (name) => sources.get(name),
    getDefaultLibFileName: () => '/maker-lib.d.ts',
    writeFile: () => undefined,
    getCurrentDirectory: () => '/',
    getCanonicalFileName: (name) => name,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (name) => sources.has(name),
    readFile: (name) => names.get(name)?.content,
  };
  const program = ts.createProgram({ rootNames: [...sources.keys()], options, host });
  const checker = program.getTypeChecker();
  for (const [name, file] of names) {
    const source = program.getSourceFile(name);
    const forms =
      source === undefined || program.getSyntacticDiagnostics(source).length > 0
        ? null
        : { normal: writeTree(ts, source, undefined), alpha: writeTree(ts, source, checker) };
    remember(file.key, forms);
    if (forms !== null) out.set(file.path, forms);
  }
  return out;
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
 * A tree as text: `(Kind child …)`, with identifiers' names, literals' values and the few facts the
 * parser keeps outside child nodes (an operator, `let` or `const`, type-only imports). With a
 * `checker`, local names are written as `$n`.
 */
function writeTree(ts: Ts, root: TS.SourceFile, checker: TS.TypeChecker | undefined): string {
  const flagMask =
    ts.NodeFlags.Let |
    ts.NodeFlags.Const |
    ts.NodeFlags.Using |
    ts.NodeFlags.Namespace |
    ts.NodeFlags.NestedNamespace |
    ts.NodeFlags.GlobalAugmentation |
    ts.NodeFlags.OptionalChain;
  const locals = new Map<TS.Symbol, number>();
  const parts: string[] = [];
  const visit = (node: TS.Node): void => {
    const leaf = leafText(ts, node, checker, locals);
    if (leaf !== undefined) {
      parts.push(leaf);
      return;
    }
    parts.push(`(${node.kind}`);
    const flags = node.flags & flagMask;
    if (flags !== 0) parts.push(`#${flags}`);
    const fields = node as unknown as Record<string, unknown>;
    for (const field of ['operator', 'token', 'keywordToken'])
      if (typeof fields[field] === 'number') parts.push(`${field}=${fields[field]}`);
    for (const field of ['isTypeOnly', 'isExportEquals'])
      if (fields[field] === true) parts.push(field);
    ts.forEachChild(node, visit);
    parts.push(')');
  };
  visit(root);
  return parts.join(' ');
}

/** A leaf's text (a name or a literal's value), or undefined for a node with children. */
function leafText(
  ts: Ts,
  node: TS.Node,
  checker: TS.TypeChecker | undefined,
  locals: Map<TS.Symbol, number>,
): string | undefined {
  if (ts.isIdentifier(node)) {
    const local = checker === undefined ? undefined : localSymbol(ts, node, checker);
    if (local === undefined) return `id:${node.text}`;
    let index = locals.get(local);
    if (index === undefined) {
      index = locals.size;
      locals.set(local, index);
    }
    return `$${index}`;
  }
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

/**
 * The symbol of `id` when renaming it consistently cannot change what the program does: every
 * declaration is a parameter or sits inside a function or block, and `id` is not also a property
 * name there (`{ x }`, `const { x } = o`).
 */
function localSymbol(ts: Ts, id: TS.Identifier, checker: TS.TypeChecker): TS.Symbol | undefined {
  const parent = id.parent;
  if (ts.isShorthandPropertyAssignment(parent)) return undefined;
  if (ts.isBindingElement(parent) && parent.propertyName === undefined && parent.name === id)
    return undefined;
  let symbol: TS.Symbol | undefined;
  try {
    symbol = checker.getSymbolAtLocation(id);
  } catch {
    return undefined;
  }
  const declarations = symbol?.declarations ?? [];
  if (symbol === undefined || declarations.length === 0) return undefined;
  return declarations.every((d) => isLocalDeclaration(ts, d)) ? symbol : undefined;
}

function isLocalDeclaration(ts: Ts, declaration: TS.Declaration): boolean {
  if (ts.isParameter(declaration))
    return !(
      ts.isConstructorDeclaration(declaration.parent) &&
      (ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.ParameterPropertyModifier) !== 0
    );
  if (!(
    ts.isVariableDeclaration(declaration) ||
    ts.isFunctionDeclaration(declaration) ||
    ts.isClassDeclaration(declaration) ||
    ts.isBindingElement(declaration) ||
    ts.isTypeParameterDeclaration(declaration)
  ))
    return false;
  if (ts.isTypeParameterDeclaration(declaration)) return true;
  // Inside a function or block (not a module's or namespace's top level).
  for (let node: TS.Node = declaration.parent; !ts.isSourceFile(node); node = node.parent) {
    if (ts.isModuleBlock(node)) return false;
    if (ts.isFunctionLike(node) || ts.isBlock(node) || ts.isCatchClause(node)) return true;
  }
  return false;
}
