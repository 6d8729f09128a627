import type * as TS from 'typescript';

/**
 * Which identifiers name a local (a parameter, or anything declared inside a function or block),
 * from one file's syntax tree and its binder's scopes alone: no program, no type checker. It follows
 * the checker's own name lookup (`getSymbolAtLocation`, `resolveNameHelper` in TypeScript 5) for
 * every case where the answer can be a local; any name it resolves at a module's top level or
 * further out, and every property, is not a local. `test/core/local-names.test.ts` compares it with
 * the checker on this repository's sources.
 *
 * A program and its checker cost about 5 ms for two small files, whatever their size (the checker
 * sets up its global types); parsing and binding them, about 0.2 ms.
 */

type Ts = typeof TS;

/** Functions the compiler exports at run time but leaves out of its declarations. */
interface Internals {
  bindSourceFile(file: TS.SourceFile, options: TS.CompilerOptions): void;
  isDeclarationName(node: TS.Node): boolean;
  isExpressionNode(node: TS.Node): boolean;
  isPartOfTypeNode(node: TS.Node): boolean;
  isRightSideOfQualifiedNameOrPropertyAccess(node: TS.Node): boolean;
  isExpressionWithTypeArgumentsInClassExtendsClause(node: TS.Node): boolean;
  getAssignmentDeclarationKind(node: TS.Node): number;
  getLeftmostAccessExpression(node: TS.Node): TS.Node;
  isInJSFile(node: TS.Node): boolean;
  isJSXTagName(node: TS.Node): boolean;
  isIntrinsicJsxName(name: string): boolean;
  isStatic(node: TS.Node): boolean;
}

/** A node as the binder leaves it: a scope's table of names, a declaration's symbol. */
type Bound = TS.Node & {
  readonly locals?: TS.SymbolTable;
  readonly symbol?: TS.Symbol;
};

/** A function-like node's body and return type, where it has them. */
type Signature = TS.Node & { readonly body?: TS.Node; readonly type?: TS.Node };

/** `NodeFlags.InWithStatement`, left out of the compiler's declarations. */
const IN_WITH_STATEMENT = 1 << 26;

function internals(ts: Ts): Internals {
  return ts as unknown as Internals;
}

/** Binds `file` (its scopes' tables and its declarations' symbols), as a program's checker would. */
export function bindFile(ts: Ts, file: TS.SourceFile, options: TS.CompilerOptions): void {
  internals(ts).bindSourceFile(file, options);
}

/**
 * The symbol of `id` when renaming it consistently cannot change what the program does: every
 * declaration is a parameter or sits inside a function or block, and `id` is not also a property
 * name there (`{ x }`, `const { x } = o`). The file must be bound (`bindFile`).
 */
export function localSymbol(ts: Ts, id: TS.Identifier): TS.Symbol | undefined {
  const parent = id.parent;
  if (ts.isShorthandPropertyAssignment(parent)) return undefined;
  if (ts.isBindingElement(parent) && parent.propertyName === undefined && parent.name === id)
    return undefined;
  const symbol = symbolOf(ts, id);
  const declarations = symbol?.declarations ?? [];
  if (symbol === undefined || declarations.length === 0) return undefined;
  return declarations.every((d) => isLocalDeclaration(ts, d)) ? symbol : undefined;
}

/**
 * What the checker's `getSymbolAtLocation(id)` returns, where that can be a local; undefined where
 * it can only be something else (a property, an import, a module's or a namespace's member).
 */
function symbolOf(ts: Ts, id: TS.Identifier): TS.Symbol | undefined {
  const x = internals(ts);
  const parent = id.parent;
  if ((id.flags & IN_WITH_STATEMENT) !== 0) return undefined;
  if (ts.isImportSpecifier(parent) || ts.isExportSpecifier(parent)) return undefined;
  if (x.isDeclarationName(id)) return (parent as Bound).symbol;
  // A property of the pattern's type; `new.target`, `import.meta`.
  if (ts.isBindingElement(parent) && parent.propertyName === id) return undefined;
  if (ts.isMetaProperty(parent)) return undefined;
  if (inImportEqualsOrExportAssignment(ts, id) || inImportTypeQualifier(ts, id)) return undefined;
  // JavaScript's assignment declarations (`exports.a =`, `module.exports =`, `this.a =`,
  // `C.prototype.a =`, `f.a =`) name the assignment, not a variable.
  if (x.isInJSFile(id) && ts.isPropertyAccessExpression(parent)) {
    const assignment = parent.parent;
    if (
      ts.isBinaryExpression(assignment) &&
      assignment.left === parent &&
      assignment.operatorToken.kind === ts.SyntaxKind.EqualsToken
    ) {
      // The binder gives such an assignment a symbol only where it declares something (not when
      // `module` or `exports` is a local): then that symbol is the answer, else the name's own.
      const kind = x.getAssignmentDeclarationKind(assignment);
      const declared =
        kind === 1 || kind === 3
          ? (parent as Bound).symbol
          : kind === 2 || kind === 4 || (kind === 5 && x.getLeftmostAccessExpression(parent) !== id)
            ? (assignment as Bound).symbol
            : undefined;
      if (declared !== undefined) return declared;
    }
  }
  // The right side of `a.b` or `A.B`: a property, or a namespace's or an enum's member.
  if (x.isRightSideOfQualifiedNameOrPropertyAccess(id)) return undefined;
  let top: TS.Node = id;
  while (ts.isPropertyAccessExpression(top.parent)) top = top.parent;
  if (ts.isExpressionWithTypeArguments(top.parent)) {
    let meaning: number;
    if (top === id) {
      meaning = x.isPartOfTypeNode(id) ? ts.SymbolFlags.Type : ts.SymbolFlags.Value;
      if (x.isExpressionWithTypeArgumentsInClassExtendsClause(parent))
        meaning |= ts.SymbolFlags.Value;
    } else meaning = ts.SymbolFlags.Namespace;
    const found = resolve(ts, id, meaning | ts.SymbolFlags.Alias);
    if (found !== undefined) return found;
  }
  if (x.isExpressionNode(id)) {
    if (x.isJSXTagName(id) && x.isIntrinsicJsxName(id.text)) return undefined;
    return resolve(ts, id, ts.SymbolFlags.Value);
  }
  let name: TS.Node = id;
  while (ts.isQualifiedName(name.parent)) name = name.parent;
  if (ts.isTypeReferenceNode(name.parent))
    return resolve(
      ts,
      id,
      ts.isTypeReferenceNode(parent) ? ts.SymbolFlags.Type : ts.SymbolFlags.Namespace,
    );
  if (ts.isTypePredicateNode(parent)) return resolve(ts, id, ts.SymbolFlags.FunctionScopedVariable);
  return undefined;
}

function inImportEqualsOrExportAssignment(ts: Ts, id: TS.Identifier): boolean {
  let node: TS.Node = id;
  while (ts.isQualifiedName(node.parent) || ts.isPropertyAccessExpression(node.parent))
    node = node.parent;
  return (
    (ts.isImportEqualsDeclaration(node.parent) && node.parent.moduleReference === node) ||
    (ts.isExportAssignment(node.parent) && node.parent.expression === node)
  );
}

function inImportTypeQualifier(ts: Ts, id: TS.Identifier): boolean {
  let node: TS.Node = id;
  while (ts.isQualifiedName(node.parent)) node = node.parent;
  return ts.isImportTypeNode(node.parent) && node.parent.qualifier === node;
}

/** A name in the binder's table that has one of the meanings (value, type, namespace…). */
function lookup(table: TS.SymbolTable | undefined, name: TS.__String, meaning: number) {
  const symbol = table?.get(name);
  return symbol !== undefined && (symbol.flags & meaning) !== 0 ? symbol : undefined;
}

/**
 * The checker's name lookup from `id` outwards, scope by scope, as far as a module's or a
 * namespace's top level: what is found there or beyond is never a local, so the walk stops.
 */
function resolve(ts: Ts, id: TS.Identifier, meaning: number): TS.Symbol | undefined {
  let last: TS.Node | undefined;
  let location: TS.Node | undefined = id;
  while (location !== undefined) {
    if (ts.isSourceFile(location) || ts.isModuleDeclaration(location)) return undefined;
    const here = location as Bound;
    const found = lookup(here.locals, id.escapedText, meaning);
    if (found !== undefined && visibleFrom(ts, here, last, found, meaning)) return found;
    const answer = scopeAnswer(ts, location, last, id, meaning);
    if (answer !== undefined) return answer.symbol;
    if (ts.isDecorator(location)) location = decoratedDeclaration(ts, location);
    last = location;
    location = location.parent;
  }
  return undefined;
}

/**
 * A scope's answer for a name beyond its table of locals: the symbol it names (undefined: it names
 * nothing local, and the lookup stops). No answer (undefined): look further out.
 */
type Answer = { readonly symbol: TS.Symbol | undefined } | undefined;

const NOT_LOCAL: Answer = { symbol: undefined };

/**
 * What a scope says of the name besides its locals: an enum's members, a class's or interface's
 * type parameters and a class expression's own name, type parameters out of scope (in an
 * `extends` expression, a computed property name), a function's `arguments`, a function
 * expression's own name, an `infer` type's parameter.
 */
function scopeAnswer(
  ts: Ts,
  location: TS.Node,
  last: TS.Node | undefined,
  id: TS.Identifier,
  meaning: number,
): Answer {
  const K = ts.SyntaxKind;
  const F = ts.SymbolFlags;
  const name = id.escapedText;
  const here = location as Bound;
  switch (location.kind) {
    case K.EnumDeclaration:
      if (lookup(here.symbol?.exports, name, meaning & F.EnumMember) !== undefined)
        return NOT_LOCAL;
      break;
    case K.ClassDeclaration:
    case K.ClassExpression:
    case K.InterfaceDeclaration:
      return classLikeAnswer(ts, here, last, id, meaning);
    case K.ExpressionWithTypeArguments:
      if (
        typeParameterInExtends(ts, location as TS.ExpressionWithTypeArguments, last, name, meaning)
      )
        return NOT_LOCAL;
      break;
    case K.ComputedPropertyName:
      if (typeParameterInComputedName(ts, location as TS.ComputedPropertyName, name, meaning))
        return NOT_LOCAL;
      break;
    case K.MethodDeclaration:
    case K.Constructor:
    case K.GetAccessor:
    case K.SetAccessor:
    case K.FunctionDeclaration:
      if (isArgumentsObject(ts, id, meaning)) return NOT_LOCAL;
      break;
    case K.FunctionExpression: {
      if (isArgumentsObject(ts, id, meaning)) return NOT_LOCAL;
      const own = (location as TS.FunctionExpression).name;
      if ((meaning & F.Function) !== 0 && own !== undefined && own.escapedText === name)
        return { symbol: here.symbol };
      break;
    }
    case K.InferType: {
      const parameter = (location as TS.InferTypeNode).typeParameter;
      if ((meaning & F.TypeParameter) !== 0 && parameter.name.escapedText === name)
        return { symbol: (parameter as Bound).symbol };
      break;
    }
  }
  return undefined;
}

/**
 * In a class or interface: its type parameter (out of scope in a static member: not a local), or
 * a class expression's own name.
 */
function classLikeAnswer(
  ts: Ts,
  location: Bound,
  last: TS.Node | undefined,
  id: TS.Identifier,
  meaning: number,
): Answer {
  const F = ts.SymbolFlags;
  const name = id.escapedText;
  const parameter = lookup(location.symbol?.members, name, meaning & F.Type);
  if (
    parameter !== undefined &&
    (parameter.declarations ?? []).some(
      (d) => ts.isTypeParameterDeclaration(d) && d.parent === location,
    )
  )
    return last !== undefined && internals(ts).isStatic(last) ? NOT_LOCAL : { symbol: parameter };
  const className = ts.isClassExpression(location) ? location.name : undefined;
  if ((meaning & F.Class) !== 0 && className !== undefined && className.escapedText === name)
    return { symbol: location.symbol };
  return undefined;
}

/** Whether the name is a type of the class's own (a type parameter) in its `extends` expression, where it is out of scope. */
function typeParameterInExtends(
  ts: Ts,
  location: TS.ExpressionWithTypeArguments,
  last: TS.Node | undefined,
  name: TS.__String,
  meaning: number,
): boolean {
  const heritage = location.parent;
  return (
    ts.isHeritageClause(heritage) &&
    last === location.expression &&
    heritage.token === ts.SyntaxKind.ExtendsKeyword &&
    ts.isClassLike(heritage.parent) &&
    lookup((heritage.parent as Bound).symbol?.members, name, meaning & ts.SymbolFlags.Type) !==
      undefined
  );
}

/** Whether the name is a type of the class's or interface's own (a type parameter) in a computed property name, where it is out of scope. */
function typeParameterInComputedName(
  ts: Ts,
  location: TS.ComputedPropertyName,
  name: TS.__String,
  meaning: number,
): boolean {
  const owner = location.parent.parent;
  return (
    (ts.isClassLike(owner) || ts.isInterfaceDeclaration(owner)) &&
    lookup((owner as Bound).symbol?.members, name, meaning & ts.SymbolFlags.Type) !== undefined
  );
}

/** Whether the name is `arguments` as a value: in a function (not an arrow function), its arguments object. */
function isArgumentsObject(ts: Ts, id: TS.Identifier, meaning: number): boolean {
  return (meaning & ts.SymbolFlags.Variable) !== 0 && id.text === 'arguments';
}

/**
 * Where the lookup goes on from a decorator, as the checker's does: from the parameter or class
 * member it decorates (so not through a method's locals), or the class.
 */
function decoratedDeclaration(ts: Ts, decorator: TS.Decorator): TS.Node {
  let location: TS.Node = decorator;
  if (ts.isParameter(location.parent)) location = location.parent;
  if (ts.isClassElement(location.parent) || ts.isClassDeclaration(location.parent))
    location = location.parent;
  return location;
}

/**
 * Whether a name found in a function's table can be seen from where the lookup came from (its
 * parameters see the body's type parameters but not its `var`s), or in a conditional type's
 * (`infer` names only in its true branch).
 */
function visibleFrom(
  ts: Ts,
  location: Bound,
  last: TS.Node | undefined,
  found: TS.Symbol,
  meaning: number,
): boolean {
  const F = ts.SymbolFlags;
  if (ts.isConditionalTypeNode(location)) return last === location.trueType;
  if (!ts.isFunctionLike(location)) return true;
  const { body, type } = location as Signature;
  if (last === undefined || last === body) return true;
  let use = true;
  const synthesized = (last.flags & ts.NodeFlags.Synthesized) !== 0;
  if ((meaning & found.flags & F.Type) !== 0)
    use =
      (found.flags & F.TypeParameter) !== 0 &&
      (synthesized || last === type || ts.isParameter(last) || ts.isTypeParameterDeclaration(last));
  if ((meaning & found.flags & F.Variable) !== 0) {
    const declaration = found.valueDeclaration;
    if (
      ts.isParameter(last) &&
      body !== undefined &&
      declaration !== undefined &&
      declaration.pos >= body.pos &&
      declaration.end <= body.end
    )
      use = false;
    else if ((found.flags & F.FunctionScopedVariable) !== 0)
      use =
        ts.isParameter(last) ||
        synthesized ||
        (last === type && ts.findAncestor(declaration, ts.isParameter) !== undefined);
  }
  return use;
}

/** A parameter (not a constructor's parameter property), or a declaration in a function or block. */
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
