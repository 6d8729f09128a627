import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  jsonTextKey,
  splitKey,
  textKey,
} from '../../src/core/voting/equivalence.js';

describe('equivalence keys', () => {
  it('canonical JSON sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,1]},"b":1}',
    );
    expect(canonicalJson({ a: { c: null, d: [2, 1] }, b: 1 })).toBe(
      canonicalJson({ b: 1, a: { d: [2, 1], c: null } }),
    );
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it('normalises whitespace inside strings unless told not to', () => {
    expect(canonicalJson({ title: '  Add   a\ttest\n' })).toBe('{"title":"Add a test"}');
    expect(canonicalJson({ code: 'a  b' }, { normalizeStrings: false })).toBe('{"code":"a  b"}');
  });

  it('drops undefined fields as JSON does and refuses cycles and functions', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cycle/);
    expect(() => canonicalJson({ f: () => 1 })).toThrow(/function/);
    const shared = { x: 1 };
    expect(canonicalJson([shared, shared])).toBe('[{"x":1},{"x":1}]');
  });

  it('JSON text votes by meaning, not layout; non-JSON falls back to normalised text', () => {
    expect(jsonTextKey('{"b": 2,\n "a": 1}')).toBe(jsonTextKey('{"a":1,"b":2}'));
    expect(jsonTextKey('not json  here')).toBe('text:not json here');
    expect(textKey('  two\n\nwords ')).toBe('two words');
  });
});

describe('split equivalence by structure', () => {
  const split = (description: string, title = 'Write the parser') => [
    { title, description, files: ['src/parse.ts'], dependsOn: [] },
    { title: 'Write the CLI', description: 'Wire it up.', files: ['./src/cli.ts'], dependsOn: [0] },
  ];
  it('splits that differ only in prose, titles or file spelling are one class', () => {
    expect(splitKey(split('Parse CSV rows.'))).toBe(
      splitKey(split('Parse every CSV row, quoted fields included.', 'Write the parser.')),
    );
    expect(splitKey(split('x', 'write  THE parser'))).toBe(splitKey(split('y')));
    // A title is prose, as a description is: the files, order, dependencies and checks bind.
    expect(splitKey(split('x', 'CSV parsing module'))).toBe(splitKey(split('x')));
  });
  it('a subtask with neither files nor a check is keyed by its title: nothing else binds it', () => {
    const bare = (title: string) => [
      { title, description: 'x', files: [], dependsOn: [] },
      { title: 'Write the CLI', description: 'y', files: [' '], dependsOn: [0], check: '  ' },
    ];
    expect(splitKey(bare('Write THE docs.'))).toBe(splitKey(bare('write docs')));
    expect(splitKey(bare('Write the docs'))).not.toBe(splitKey(bare('Write the tests')));
    const [a, b] = bare('Write the docs');
    expect(splitKey([a!, { ...b!, title: 'Wire the command line' }])).not.toBe(
      splitKey(bare('Write the docs')),
    );
  });
  it('what a subtask provides its siblings is prose: its wording, or its absence, does not split a vote', () => {
    const [a, b] = split('x');
    const one = { ...a!, provides: ['parse(text) → string[][], exported by src/parse.ts'] };
    const other = { ...a!, provides: ['src/parse.ts exports parse(text: string): string[][]'] };
    expect(splitKey([one, b!])).toBe(splitKey([other, b!]));
    expect(splitKey([one, b!])).toBe(splitKey(split('x')));
  });
  it('different files, dependencies, checks or order are different splits', () => {
    const base = splitKey(split('x'));
    const [a, b] = split('x');
    expect(splitKey([{ ...a!, files: ['src/other.ts'] }, b!])).not.toBe(base);
    expect(splitKey([a!, { ...b!, dependsOn: [] }])).not.toBe(base);
    expect(splitKey([{ ...a!, check: 'npm test' }, b!])).not.toBe(base);
    expect(splitKey([b!, a!])).not.toBe(base);
  });
});
