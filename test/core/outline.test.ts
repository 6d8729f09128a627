import { describe, expect, it } from 'vitest';
import { languageOf, outline } from '../../src/core/outline.js';

describe('outline: the top-level definitions of a source file', () => {
  it.each([
    ['src/a.ts', 'js'],
    ['web/App.tsx', 'js'],
    ['lib/x.mjs', 'js'],
    ['tool.py', 'python'],
    ['main.go', 'generic'],
    ['src/lib.rs', 'generic'],
    ['README.md', undefined],
    ['package.json', undefined],
  ])('%s is %s', (path, language) => {
    expect(languageOf(path)).toBe(language);
  });

  it('TypeScript: exports, signatures over several lines, class and interface members; not bodies, strings or comments', () => {
    const source = [
      "import { x } from './x.js';",
      '/** A comment with function fake() { */',
      'export interface Row {',
      '  readonly id: number;',
      '  name?: string;',
      '}',
      'export type Id = string | number;',
      'export function parse(',
      '  text: string,',
      '  options: { strict: boolean } = { strict: true },',
      '): Row[] {',
      "  const s = '{ not a brace';",
      '  const t = `${text.length} }`;',
      '  const r = /[{]/;',
      '  return [];',
      '}',
      'export class Store extends Base {',
      '  readonly #rows = new Map<number, Row>();',
      '  constructor(private readonly path: string) {',
      '    super();',
      '  }',
      '  async load(id: number): Promise<Row | undefined> {',
      '    if (id > 0) {',
      '      return undefined;',
      '    }',
      '  }',
      '}',
      'function helper(a: number): number {',
      '  return a;',
      '}',
      'export const double = (n: number): number => n * 2;',
      'export const TABLE = { a: 1, b: 2 };',
      "export { helper as help } from './y.js';",
      'export default Store;',
    ].join('\n');
    expect(outline('src/store.ts', source)).toEqual([
      'export interface Row',
      '  readonly id: number',
      '  name?: string',
      'export type Id = string | number',
      'export function parse( text: string, options: { strict: boolean } = { strict: true }, ): Row[]',
      'export class Store extends Base',
      '  constructor(private readonly path: string)',
      '  async load(id: number): Promise<Row | undefined>',
      'function helper(a: number): number',
      'export const double = (n: number): number =>',
      'export const TABLE = {…}',
      "export { helper as help } from './y.js'",
      'export default Store',
    ]);
  });

  it('JavaScript (CommonJS): functions, arrow constants, classes with public methods, exports; not bodies or private members', () => {
    const source = [
      "'use strict';",
      "const fs = require('fs');",
      '/** docs */',
      'function parse(text, opts = {}) {',
      '  const inner = 1;',
      '  return text;',
      '}',
      'const render = (rows) => rows.join("\\n");',
      'class Table {',
      '  constructor(rows) { this.rows = rows; }',
      '  add(row) { this.rows.push(row); }',
      '  #hidden() {}',
      '}',
      'module.exports = { parse, render, Table };',
    ].join('\n');
    expect(outline('lib/table.js', source)).toEqual([
      "const fs = require('fs')",
      'function parse(text, opts = {})',
      'const render = (rows) =>',
      'class Table',
      '  constructor(rows)',
      '  add(row)',
      'module.exports = { parse, render, Table }',
    ]);
  });

  it('Python: functions, classes with their public methods, constants; not docstrings or nested code', () => {
    const source = [
      'import csv',
      '',
      'MAX_ROWS = 1000',
      '"""',
      'def not_a_function(): pass',
      '"""',
      'class Reader(Base):',
      '    """Reads rows."""',
      '    def __init__(self, path: str) -> None:',
      '        self.path = path',
      '        def inner(): pass',
      '    def rows(',
      '        self,',
      '        limit: int = 10,',
      '    ) -> list[dict]:',
      '        return []',
      '    def _private(self): pass',
      '',
      'async def fetch(url: str) -> bytes:',
      '    return b""',
      'def main():',
      '    Reader("x")',
    ].join('\n');
    expect(outline('tool.py', source)).toEqual([
      'MAX_ROWS = 1000',
      'class Reader(Base)',
      '  def __init__(self, path: str) -> None',
      '  def rows(self, limit: int = 10) -> list[dict]',
      'async def fetch(url: str) -> bytes',
      'def main()',
    ]);
  });

  it('other languages: definition lines at the margin', () => {
    const go = [
      'package main',
      '',
      'import "fmt"',
      '',
      '// Add adds.',
      'func Add(a, b int) int {',
      '\treturn a + b',
      '}',
      'type Point struct {',
      '\tX, Y int',
      '}',
    ].join('\n');
    expect(outline('main.go', go)).toEqual([
      'package main',
      'func Add(a, b int) int',
      'type Point struct',
    ]);
    const c = [
      '#include <stdio.h>',
      '#define MAX 10',
      'int add(int a, int b) {',
      '  return a;',
      '}',
    ];
    expect(outline('add.c', c.join('\n'))).toEqual(['int add(int a, int b)']);
  });

  it('is bounded and never throws on odd input', () => {
    const many = Array.from({ length: 100 }, (_, i) => `export const c${i} = ${i};`).join('\n');
    expect(outline('a.ts', many)).toHaveLength(40);
    expect(outline('a.ts', many, 5)).toHaveLength(5);
    for (const odd of ['}}}}', '{{{{', '`${`', '/* never closed', "'", 'def (', '\u0000\u0001'])
      expect(
        () => outline('a.ts', odd) && outline('a.py', odd) && outline('a.go', odd),
      ).not.toThrow();
    expect(outline('notes.md', '# export function x() {}')).toEqual([]);
  });
});
