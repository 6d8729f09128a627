import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as TS from 'typescript';
import { describe, expect, it } from 'vitest';
import { bindFile, localSymbol } from '../../src/core/voting/local-names.js';
import { loadTypeScript, parseOptions } from '../../src/core/voting/syntax-tree.js';

/**
 * `local-names.ts` finds locals from the binder's scopes alone. The reference is what vote classes
 * used before it: a program and its type checker (`getSymbolAtLocation`), the same rule for what is
 * local. Both must pick the same symbol for every identifier of real code: this repository's
 * TypeScript, and JavaScript (CommonJS and ES modules) from its dependencies.
 */

type Ts = typeof TS;

function referenceLocal(ts: Ts, id: TS.Identifier, checker: TS.TypeChecker): TS.Symbol | undefined {
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
  return declarations.every((d) => referenceIsLocal(ts, d)) ? symbol : undefined;
}

function referenceIsLocal(ts: Ts, declaration: TS.Declaration): boolean {
  if (ts.isParameter(declaration))
    return !(
      ts.isConstructorDeclaration(declaration.parent) &&
      (ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.ParameterPropertyModifier) !== 0
    );
  if (ts.isTypeParameterDeclaration(declaration)) return true;
  if (!(
    ts.isVariableDeclaration(declaration) ||
    ts.isFunctionDeclaration(declaration) ||
    ts.isClassDeclaration(declaration) ||
    ts.isBindingElement(declaration)
  ))
    return false;
  for (let node: TS.Node = declaration.parent; !ts.isSourceFile(node); node = node.parent) {
    if (ts.isModuleBlock(node)) return false;
    if (ts.isFunctionLike(node) || ts.isBlock(node) || ts.isCatchClause(node)) return true;
  }
  return false;
}

function files(dir: string, pattern: RegExp, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files(path, pattern, out);
    else if (pattern.test(entry.name)) out.push(path);
  }
  return out.sort();
}

/** Every identifier whose local symbol differs between the two ways, as `file:line name`. */
function differences(ts: Ts, paths: readonly string[]): { compared: number; diffs: string[] } {
  // The options the vote classes bind with, so the checker sees the files as they do.
  const options = parseOptions(ts);
  const sources = new Map<string, TS.SourceFile>();
  for (const path of paths) {
    const kind = /\.tsx(\.fixture)?$/.test(path)
      ? ts.ScriptKind.TSX
      : /\.[cm]?jsx?(\.fixture)?$/.test(path)
        ? ts.ScriptKind.JS
        : ts.ScriptKind.TS;
    // Fixtures end in `.fixture`, out of the repository's own type checks and lint.
    const name = `/${path.replace(/\.fixture$/, '')}`;
    sources.set(
      name,
      ts.createSourceFile(name, readFileSync(path, 'utf8'), ts.ScriptTarget.ESNext, true, kind),
    );
  }
  // Bound first, here: the checker then uses the same tables (it binds a file only once).
  for (const source of sources.values()) bindFile(ts, source, options);
  const host: TS.CompilerHost = {
    getSourceFile: (name) => sources.get(name),
    getDefaultLibFileName: () => '/maker-lib.d.ts',
    writeFile: () => undefined,
    getCurrentDirectory: () => '/',
    getCanonicalFileName: (name) => name,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (name) => sources.has(name),
    readFile: () => undefined,
  };
  const program = ts.createProgram({ rootNames: [...sources.keys()], options, host });
  const checker = program.getTypeChecker();
  let compared = 0;
  const diffs: string[] = [];
  for (const source of sources.values()) {
    const visit = (node: TS.Node): void => {
      if (ts.isIdentifier(node)) {
        compared += 1;
        const expected = referenceLocal(ts, node, checker);
        const actual = localSymbol(ts, node);
        if (expected !== actual) {
          const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
          diffs.push(
            `${source.fileName}:${line} ${node.text}: checker ${expected === undefined ? 'not local' : 'local'}, binder ${actual === undefined ? 'not local' : 'local'}${expected !== undefined && actual !== undefined ? ' (another symbol)' : ''}`,
          );
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { compared, diffs };
}

describe("local names from the binder's scopes", () => {
  // All of src/ (332 files) also agreed, in 19 s on a loaded machine: the core and the engine here.
  it("pick the checker's symbol for every identifier of this repository's TypeScript", async () => {
    const ts = await loadTypeScript();
    const { compared, diffs } = differences(ts, [
      ...files('src/core', /\.ts$/),
      ...files('src/engine', /\.ts$/),
    ]);
    expect(compared).toBeGreaterThan(20_000);
    expect(diffs.slice(0, 20)).toEqual([]);
  });

  it("pick the checker's symbol in JavaScript: CommonJS and ES modules", async () => {
    const ts = await loadTypeScript();
    const { compared, diffs } = differences(ts, [
      ...files('node_modules/commander/lib', /\.js$/),
      ...files('node_modules/yaml/dist', /\.js$/).slice(0, 20),
      ...files('node_modules/@secretlint/core/module', /\.js$/),
      ...files('node_modules/zod/v4/classic', /\.js$/),
    ]);
    expect(compared).toBeGreaterThan(10_000);
    expect(diffs.slice(0, 20)).toEqual([]);
  });

  it('handle the scoping cases one by one', async () => {
    const ts = await loadTypeScript();
    const dir = 'test/fixtures/local-names';
    const { compared, diffs } = differences(ts, files(dir, /\.fixture$/));
    expect(compared).toBeGreaterThan(100);
    expect(diffs).toEqual([]);
  });
});
