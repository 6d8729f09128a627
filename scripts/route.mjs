// The reading route of one run: the way a newcomer reads the code that ran, as data. From the
// run's entry (the `maker` bin's top level), read each function top to bottom and, at each
// reference to another function that ran (a call, a callback passed on, a dynamic import of a
// module whose exports ran), step into it the first time (a function already read is not read
// again), then come back. Which functions ran comes from V8's precise coverage of the bundle,
// mapped back to src/ through its source maps; what a reference names, from TypeScript's checker.
// A call through an interface (a port, a kind's roles) steps into every function that ran under
// that member's name in a class implementing it or an object literal typed by it.
//
// A function's unit of reading is the outermost function around it, not crossing a class: an
// arrow inside a function is read with it, a class's methods each on their own. The route is
// the sequence of files the reader is in; consecutive steps in one file are one stop, and coming
// back to a caller is a stop only when the reader goes on from there to another reference. A
// stop in a file (or its folder: a room) the route already left is a return.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Where each function that ran starts, in src/: file (relative to root) → [{line, column}]. */
export function ranFunctions(coverageDir, root) {
  const ran = new Map();
  for (const name of readdirSync(coverageDir)) {
    const { result } = JSON.parse(readFileSync(join(coverageDir, name), 'utf8'));
    for (const script of result) {
      if (!script.url.startsWith(`file://${join(root, 'dist')}/`)) continue;
      const path = fileURLToPath(script.url);
      if (!existsSync(`${path}.map`)) continue;
      const source = readFileSync(path, 'utf8');
      const map = new SourceMap(JSON.parse(readFileSync(`${path}.map`, 'utf8')));
      const lineStarts = [0];
      for (let i = 0; i < source.length; i++) if (source[i] === '\n') lineStarts.push(i + 1);
      for (const fn of script.functions) {
        const [range] = fn.ranges;
        if (range === undefined || range.count === 0 || range.startOffset === 0) continue;
        let [lo, hi] = [0, lineStarts.length - 1];
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1;
          if (lineStarts[mid] <= range.startOffset) lo = mid;
          else hi = mid - 1;
        }
        const entry = map.findEntry(lo, range.startOffset - lineStarts[lo]);
        if (entry?.originalSource === undefined) continue;
        const file = relative(root, resolve(dirname(path), entry.originalSource));
        if (!file.startsWith('src/')) continue;
        if (!ran.has(file)) ran.set(file, []);
        ran.get(file).push({ line: entry.originalLine, column: entry.originalColumn });
      }
    }
  }
  return ran;
}

const isClass = (n) => ts.isClassDeclaration(n) || ts.isClassExpression(n);
const isFunction = (n) => ts.isFunctionLike(n) && n.body !== undefined;

/** A unit of reading: a class, or a function with no function around it short of a class. */
function isUnit(n) {
  if (isClass(n)) return true;
  if (!isFunction(n)) return false;
  for (let p = n.parent; p !== undefined; p = p.parent) {
    if (isClass(p)) return true;
    if (isFunction(p)) return false;
  }
  return true;
}

function unitOf(n) {
  for (let p = n; p !== undefined; p = p.parent) if (isUnit(p)) return p;
  return undefined;
}

/** The innermost function or class of `sf` that starts at or around `offset`. */
function innermostAt(sf, offset) {
  let found;
  const visit = (n) => {
    if (n.getStart(sf) > offset || n.end <= offset) return;
    if (isFunction(n) || isClass(n)) found = n;
    ts.forEachChild(n, visit);
  };
  ts.forEachChild(sf, visit);
  return found;
}

function memberName(unit) {
  const name = unit.name;
  return name !== undefined && (ts.isIdentifier(name) || ts.isStringLiteral(name))
    ? name.text
    : ts.isPropertyAssignment(unit.parent) && ts.isIdentifier(unit.parent.name)
      ? unit.parent.name.text
      : ts.isPropertyDeclaration(unit.parent) && ts.isIdentifier(unit.parent.name)
        ? unit.parent.name.text
        : undefined;
}

/** The names of the interfaces or types an implementing unit stands for (its class's, or its object literal's). */
function implementedNames(unit, checker) {
  const names = new Set();
  const owner =
    unit.parent && (ts.isPropertyAssignment(unit.parent) || ts.isPropertyDeclaration(unit.parent))
      ? unit.parent.parent
      : unit.parent;
  if (owner === undefined) return names;
  if (isClass(owner))
    for (const clause of owner.heritageClauses ?? [])
      for (const t of clause.types) names.add(t.expression.getText());
  if (ts.isObjectLiteralExpression(owner)) {
    const type = checker.getContextualType(owner);
    const add = (t) => {
      const s = t?.aliasSymbol ?? t?.getSymbol();
      if (s !== undefined) names.add(s.getName());
    };
    add(type);
    for (const part of type?.isUnionOrIntersection?.() ? type.types : []) add(part);
  }
  return names;
}

/**
 * The route from `entryFile`'s top level through the functions that ran: { files, stops,
 * returns, rooms: {rooms, stops, returns}, unread: files where something ran that the route
 * never reached }.
 */
export function readingRoute(coverageDir, root, entryFile) {
  const ran = ranFunctions(coverageDir, root);
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => {},
    },
  );
  const program = ts.createProgram({
    rootNames: config.fileNames.filter((f) => f.startsWith(join(root, 'src') + '/')),
    options: config.options,
  });
  const checker = program.getTypeChecker();
  const units = new Set();
  for (const [file, starts] of ran) {
    const sf = program.getSourceFile(join(root, file));
    if (sf === undefined) continue;
    for (const { line, column } of starts) {
      if (line >= sf.getLineStarts().length) continue;
      const found = innermostAt(sf, sf.getPositionOfLineAndCharacter(line, column));
      const unit = found && unitOf(found);
      if (unit !== undefined) units.add(unit);
    }
  }
  const byMember = new Map();
  for (const unit of units) {
    const name = memberName(unit);
    if (name === undefined) continue;
    if (!byMember.has(name)) byMember.set(name, []);
    byMember.get(name).push(unit);
  }
  const fileOf = (n) => relative(root, n.getSourceFile().fileName);

  /** The units that ran which a declaration names. */
  const targets = (decl, seen = new Set()) => {
    if (decl === undefined || seen.has(decl)) return [];
    seen.add(decl);
    if (isFunction(decl) || isClass(decl)) {
      const u = unitOf(decl);
      const own = u !== undefined && units.has(u) ? [u] : [];
      if (isClass(decl))
        for (const m of decl.members)
          if (ts.isConstructorDeclaration(m) && units.has(m)) own.push(m);
      return own;
    }
    if (
      (ts.isVariableDeclaration(decl) ||
        ts.isPropertyAssignment(decl) ||
        ts.isPropertyDeclaration(decl)) &&
      decl.initializer !== undefined
    ) {
      const init = decl.initializer;
      if (isFunction(init) || isClass(init)) return targets(init, seen);
      // Data at a module's or a class's top (a table of commands, a kind's definition): read as
      // code, for the functions it holds and the names it refers to; a local is read inline.
      const owner = unitOf(decl.parent);
      return (owner === undefined || isClass(owner)) && holdsCode(decl) ? [decl] : [];
    }
    if (ts.isMethodSignature(decl) || ts.isPropertySignature(decl)) {
      const name = ts.isIdentifier(decl.name) ? decl.name.text : undefined;
      const holder = decl.parent;
      const typeName = ts.isInterfaceDeclaration(holder)
        ? holder.name.text
        : ts.isTypeLiteralNode(holder) && ts.isTypeAliasDeclaration(holder.parent)
          ? holder.parent.name.text
          : undefined;
      if (name === undefined || typeName === undefined) return [];
      return (byMember.get(name) ?? []).filter((u) => implementedNames(u, checker).has(typeName));
    }
    if (ts.isBindingElement(decl) && ts.isObjectBindingPattern(decl.parent)) {
      const holder = decl.parent.parent;
      const from = ts.isVariableDeclaration(holder) ? holder.initializer : undefined;
      if (from === undefined) return [];
      const key = (decl.propertyName ?? decl.name).getText();
      const property = checker.getTypeAtLocation(from).getProperty(key);
      return (property?.declarations ?? []).flatMap((d) => targets(d, seen));
    }
    return [];
  };

  const resolveName = (node) => {
    let symbol = checker.getSymbolAtLocation(node);
    if (symbol === undefined) return [];
    if (ts.isShorthandPropertyAssignment(node.parent) && node.parent.name === node)
      symbol = checker.getShorthandAssignmentValueSymbol(node.parent) ?? symbol;
    if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    return (symbol.declarations ?? []).flatMap((d) => targets(d));
  };

  const importTargets = (call, from) => {
    const [spec] = call.arguments;
    if (spec === undefined || !ts.isStringLiteral(spec)) return [];
    const file = resolve(dirname(from.getSourceFile().fileName), spec.text.replace(/\.js$/, '.ts'));
    const sf = program.getSourceFile(file);
    if (sf === undefined) return [];
    return [...units]
      .filter(
        (u) =>
          u.getSourceFile() === sf &&
          u.parent === sf &&
          ts.getCombinedModifierFlags(u) & ts.ModifierFlags.Export,
      )
      .concat(
        [...units].filter(
          (u) =>
            u.getSourceFile() === sf &&
            ts.isVariableDeclaration(u.parent) &&
            ts.getCombinedModifierFlags(u.parent) & ts.ModifierFlags.Export,
        ),
      );
  };

  /**
   * Whether data holds a function that ran, written in it or in data it names (a table of
   * commands holds the loader of the one that ran); else it is a value the reader need not open,
   * even when it names a function that ran for another reason.
   */
  const holding = new Map();
  const within = (unit, decl) =>
    unit.getSourceFile() === decl.getSourceFile() && unit.pos >= decl.pos && unit.end <= decl.end;
  const holdsCode = (decl) => {
    if (!holding.has(decl)) {
      holding.set(decl, false);
      holding.set(
        decl,
        references(decl).some((t) => (units.has(t) ? within(t, decl) : holdsCode(t))),
      );
    }
    return holding.get(decl);
  };

  /** The units `unit` refers to, in reading order (its own nested units aside). */
  const references = (unit) => {
    const out = [];
    const visit = (n) => {
      if (ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) return; // followed where used
      if (n !== unit && isUnit(n)) {
        if (units.has(n)) out.push(n); // a function held where the reader is: read it next
        return;
      }
      if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword)
        out.push(...importTargets(n, unit));
      if (ts.isIdentifier(n) || ts.isPrivateIdentifier(n)) out.push(...resolveName(n));
      ts.forEachChild(n, visit);
    };
    if (ts.isSourceFile(unit)) unit.statements.forEach(visit);
    else ts.forEachChild(unit, visit);
    return out;
  };

  const stops = [];
  const at = (file) => {
    if (stops.at(-1) !== file) stops.push(file);
  };
  const read = new Set();
  const walk = (unit) => {
    read.add(unit);
    const here = fileOf(unit);
    at(here);
    for (const next of references(unit)) {
      if (read.has(next)) continue;
      at(here);
      walk(next);
    }
  };
  const entry = program.getSourceFile(join(root, entryFile));
  walk(entry);

  const count = (room) => {
    const seq = [];
    for (const f of stops) if (seq.at(-1) !== room(f)) seq.push(room(f));
    const seen = new Set();
    let returns = 0;
    for (const r of seq) {
      if (seen.has(r)) returns += 1;
      seen.add(r);
    }
    return { rooms: seen.size, stops: seq.length, returns };
  };
  const returning = new Map();
  stops.forEach((file, i) => {
    if (stops.indexOf(file) < i) returning.set(file, (returning.get(file) ?? 0) + 1);
  });
  const routeFiles = new Set([...read].map(fileOf));
  const unread = [...new Set([...units].filter((u) => !read.has(u)).map(fileOf))]
    .filter((f) => !routeFiles.has(f))
    .sort();
  return {
    units: { ran: units.size, read: [...read].filter((u) => units.has(u)).length },
    byFile: count((f) => f),
    byFolder: count((f) => dirname(f)),
    files: [...routeFiles].sort(),
    unread,
    stops,
    returning: [...returning].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
  };
}
