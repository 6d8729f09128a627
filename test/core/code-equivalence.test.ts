import { describe, expect, it } from 'vitest';
import { codeKeys, type ChangedFile } from '../../src/core/voting/code-equivalence.js';
import { scriptForms } from '../../src/core/voting/syntax-tree.js';
import { voteClasses } from '../../src/core/voting/classes.js';
import { normalizeSourceText } from '../../src/core/voting/source-text.js';
import type { Draw } from '../../src/core/tree/schema.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const change = (path: string, after: string | undefined, before?: string): ChangedFile => ({
  path,
  before: before === undefined ? undefined : bytes(before),
  after: after === undefined ? undefined : bytes(after),
});

const SUM = `export function sum(values: number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}
`;
// The same program: comments, layout, quotes and a local's name differ.
const SUM_RESTYLED = `// Adds the numbers up.
export function sum(values: number[]): number
{
    let acc = 0 // running total
    for (const v of values)
        acc += v
    return acc
}`;
const SUM_RECOMMENTED = `/** Sum of the values. */
export function sum(values: number[]): number {
  let total = 0;   // start at zero

  for (const value of values) total += value;
  return total;
}
`;
// Behaviourally different: starts at one.
const SUM_WRONG = SUM.replace('let total = 0', 'let total = 1');

const draw = (slot: number, keys: { key: string; alias: string }, ok?: boolean): Draw => ({
  slot,
  status: 'valid',
  key: keys.key,
  alias: keys.alias,
  flags: [],
  ...(ok === undefined ? {} : { check: { command: 'npm test', ok, output: '' } }),
});

describe('code equivalence classes', () => {
  it('comments and layout alone are the same answer; renamed locals differ in key, agree in alias', async () => {
    const a = await codeKeys([change('src/sum.ts', SUM)]);
    const recommented = await codeKeys([change('src/sum.ts', SUM_RECOMMENTED)]);
    const restyled = await codeKeys([change('src/sum.ts', SUM_RESTYLED)]);
    const wrong = await codeKeys([change('src/sum.ts', SUM_WRONG)]);
    expect(recommented.key).toBe(a.key);
    expect(restyled.key).not.toBe(a.key);
    expect(restyled.alias).toBe(a.alias);
    expect(wrong.key).not.toBe(a.key);
    expect(wrong.alias).not.toBe(a.alias);
  });

  it('with the same check results, local-name variants are one class; a behavioural change is another', async () => {
    const [a, b, c, wrong] = await Promise.all(
      [SUM, SUM_RESTYLED, SUM_RECOMMENTED, SUM_WRONG].map((s) =>
        codeKeys([change('src/sum.ts', s)]),
      ),
    );
    const classes = voteClasses([
      draw(0, a!, true),
      draw(1, wrong!, true),
      draw(2, b!, true),
      draw(3, c!, true),
    ]);
    expect(classes.map((k) => k.members.map((m) => m.slot))).toEqual([[0, 2, 3], [1]]);
    expect(classes[0]?.key).toBe(a!.key);
    // Without checks, renaming is not trusted: the renamed one stands alone.
    const unchecked = voteClasses([draw(0, a!), draw(1, b!), draw(2, c!)]);
    expect(unchecked.map((k) => k.members.map((m) => m.slot))).toEqual([[0, 2], [1]]);
    // Checks that disagree keep them apart.
    const split = voteClasses([draw(0, a!, true), draw(1, b!, false)]);
    expect(split).toHaveLength(2);
  });

  it('public names, properties and strings are part of the answer', async () => {
    const base = await codeKeys([change('a.js', 'export const f = (x) => ({ x: x + 1 });')]);
    const renamedExport = await codeKeys([
      change('a.js', 'export const g = (x) => ({ x: x + 1 });'),
    ]);
    const renamedProperty = await codeKeys([
      change('a.js', 'export const f = (x) => ({ y: x + 1 });'),
    ]);
    const renamedParam = await codeKeys([
      change('a.js', 'export const f = (n) => ({ x: n + 1 });'),
    ]);
    const otherString = await codeKeys([
      change('a.js', "export const f = (x) => ({ x: x + '1' });"),
    ]);
    expect(renamedExport.alias).not.toBe(base.alias);
    expect(renamedProperty.alias).not.toBe(base.alias);
    expect(otherString.alias).not.toBe(base.alias);
    expect(renamedParam.alias).toBe(base.alias);
    expect(renamedParam.key).not.toBe(base.key);
    // Quote style and a trailing semicolon are spelling.
    const quoted = await codeKeys([change('b.ts', "export const s = 'hi'")]);
    const doubled = await codeKeys([change('b.ts', 'export const s = "hi";\n')]);
    expect(quoted.key).toBe(doubled.key);
  });

  it('a comment-only edit of a file is no change; JSON compares by content; a deletion counts', async () => {
    const only = await codeKeys([change('src/new.ts', SUM)]);
    const plusComment = await codeKeys([
      change('src/new.ts', SUM),
      change('README.md', '# Title\n\nSome   text.\n', '# Title\n\nSome text.\n'),
      change('src/old.ts', '// touched\nexport const a = 1;\n', 'export const a = 1;'),
    ]);
    expect(plusComment.key).toBe(only.key);
    const json1 = await codeKeys([change('package.json', '{"name":"x","version":"1.0.0"}')]);
    const json2 = await codeKeys([
      change('package.json', '{\n  "version": "1.0.0",\n  "name": "x"\n}\n'),
    ]);
    expect(json2.key).toBe(json1.key);
    const deleted = await codeKeys([
      change('src/new.ts', SUM),
      change('src/old.ts', undefined, 'x'),
    ]);
    expect(deleted.key).not.toBe(only.key);
  });

  it('a file that does not parse is compared as normalised text', async () => {
    const a = await codeKeys([change('x.ts', 'export const = ;  // broken')]);
    const b = await codeKeys([change('x.ts', 'export const =;')]);
    const c = await codeKeys([change('x.ts', 'export let = ;')]);
    expect(a.key).toBe(b.key);
    expect(c.key).not.toBe(a.key);
  });
});

describe('script forms are remembered by file text', () => {
  it('a file seen before gets the forms it had, in any company; one that did not parse stays out', async () => {
    const text = `${SUM}// remembered ${Date.now()}\n`;
    const alone = await scriptForms([{ path: 'a.ts', content: text }]);
    expect(alone.get('a.ts')?.alpha).toMatch(/\$0/);
    const broken = 'export const = ;';
    for (let i = 0; i < 2; i++) {
      const together = await scriptForms([
        { path: 'b/a.ts', content: text },
        { path: 'c.ts', content: SUM_RESTYLED },
        { path: 'd.ts', content: broken },
      ]);
      expect(together.get('b/a.ts')).toEqual(alone.get('a.ts'));
      expect(together.get('c.ts')?.alpha).toBe(alone.get('a.ts')?.alpha);
      expect(together.has('d.ts')).toBe(false);
    }
  });
});

describe('normalised text of other languages', () => {
  it('Python: comments and spacing go, indentation depth and strings stay', () => {
    const a = normalizeSourceText(
      'm.py',
      'def f(x):\n    # add one\n    return x + 1  # done\n\n\nprint( f(2) )\n',
    );
    const b = normalizeSourceText('m.py', 'def f(x):\n  return x+1\nprint(f(2))');
    expect(a).toBe(b);
    const nested = normalizeSourceText(
      'm.py',
      'def f(x):\n    if x:\n        return 1\n    return 2\n',
    );
    const flattened = normalizeSourceText(
      'm.py',
      'def f(x):\n    if x:\n        return 1\n        return 2\n',
    );
    expect(nested).not.toBe(flattened);
    expect(normalizeSourceText('m.py', 's = "a  # b"')).toBe('s="a  # b"');
  });

  it('C-like languages drop both comment forms; words keep their separating space', () => {
    expect(normalizeSourceText('m.go', 'return  x /* why */ + y // end\n')).toBe(
      normalizeSourceText('m.go', 'return x+y'),
    );
    expect(normalizeSourceText('m.go', 'return x')).not.toBe(
      normalizeSourceText('m.go', 'returnx'),
    );
  });
});
