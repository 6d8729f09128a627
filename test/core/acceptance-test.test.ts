import { describe, expect, it } from 'vitest';
import {
  checkProves,
  isTestPath,
  NO_TEST,
  holdsTests,
  testAnswerFlags,
  testKey,
  TEST_MAX_CHARS,
} from '../../src/core/acceptance-test.js';
import { parseTestAnswer } from '../../src/engine/vote/parse.js';

const test = {
  path: 'test/words.test.js',
  content:
    "import { words } from '../src/words.js';\n// splits\nassert(words('a b').length === 2);\n",
  command: 'node --test test/words.test.js',
};
const scope = ['src/words.js', 'test/words.test.js'];
const rules = (t: typeof test, s = scope) => {
  const r = testAnswerFlags(t, s);
  return r.ok ? [] : r.flags.map((f) => f.rule);
};

describe('acceptance test answers (issue #36)', () => {
  it('accepts a test file inside the leaf, run by its command, with its path made canonical', () => {
    const r = testAnswerFlags({ ...test, path: './test//words.test.js' }, scope);
    expect(r).toEqual({ ok: true, test });
  });

  it('red-flags files that are not tests, paths outside the leaf, oversized tests and commands that do not run them', () => {
    expect(rules({ ...test, path: 'src/words.js' })).toEqual(['not-a-test-file']);
    expect(rules({ ...test, path: 'maker-state.json' })).toContain('not-a-test-file');
    expect(rules({ ...test, path: '../escape.test.js' })).toContain('unsafe-path');
    expect(
      rules({ ...test, path: 'test/other.test.js', command: 'node --test test/other.test.js' }),
    ).toEqual(['out-of-scope']);
    expect(rules({ ...test, content: 'x'.repeat(TEST_MAX_CHARS + 1) })).toEqual(['oversized-test']);
    expect(rules({ ...test, command: 'node --test' })).toEqual(['test-not-run']);
    // An empty scope is the whole repository.
    expect(
      rules(
        { ...test, path: 'tests/test_cli.py', command: 'python3 -m unittest tests/test_cli.py' },
        [],
      ),
    ).toEqual([]);
  });

  it('puts the test of a leaf whose files hold no test file beside them, where no other subtask writes', () => {
    const code = ['src/words.js'];
    const free = (path: string) => path !== 'test/words.test.js';
    const beside = {
      ...test,
      path: 'test/words.criteria.test.js',
      command: 'node --test test/words.criteria.test.js',
    };
    expect(holdsTests(code)).toBe(false);
    expect(holdsTests(scope)).toBe(true);
    expect(testAnswerFlags(beside, code, free)).toEqual({ ok: true, test: beside });
    // The sibling's test file, a file that is not a test, an unsafe path: flagged as before.
    const flagged = (t: typeof test) => {
      const r = testAnswerFlags(t, code, free);
      return r.ok ? [] : r.flags.map((f) => f.rule);
    };
    expect(flagged(test)).toEqual(['out-of-scope']);
    expect(flagged({ ...beside, path: 'src/other.js', command: 'node src/other.js' })).toEqual([
      'not-a-test-file',
    ]);
    expect(flagged({ ...beside, path: '../words.test.js' })).toContain('unsafe-path');
    // A leaf that has a test file of its own keeps its test inside its files.
    expect(testAnswerFlags(beside, scope, free).ok).toBe(false);
  });

  it('knows test files by their directory or name', () => {
    for (const p of [
      'test/a.js',
      'tests/a.py',
      'a.test.mjs',
      'src/a.spec.ts',
      'test_a.py',
      'a_test.go',
    ])
      expect(isTestPath(p), p).toBe(true);
    for (const p of ['src/a.js', 'package.json', 'testing.md', 'src/latest.js'])
      expect(isTestPath(p), p).toBe(false);
  });

  it('keys answers by their normalised text: comments and layout do not split the vote', () => {
    const relaid = {
      ...test,
      content: test.content.replace('// splits\n', '').replace('===', ' === '),
    };
    expect(testKey(relaid)).toBe(testKey(test));
    expect(testKey({ ...test, content: test.content.replace('2', '3') })).not.toBe(testKey(test));
    expect(testKey(null)).toBe(NO_TEST);
  });

  it('parses the answer with zod: a malformed one is a red flag, a null test is an answer', () => {
    expect(parseTestAnswer({ text: '{"test": {"path": "a.test.js"}}' }).ok).toBe(false);
    expect(parseTestAnswer({ text: 'not json' }).ok).toBe(false);
    // Capped as a worker's answer is: over it, a red flag.
    const over = parseTestAnswer({ text: JSON.stringify({ test }), outputTokens: 20_000 });
    expect(over.ok ? [] : over.flags.map((f) => f.rule)).toEqual(['token-cap']);
    expect(parseTestAnswer({ text: JSON.stringify({ test }), outputTokens: 5_000 }).ok).toBe(true);
    expect(parseTestAnswer({ text: '{"test": null, "reason": "docs only"}' })).toMatchObject({
      ok: true,
      value: { test: null },
    });
  });

  it('says what a planned check proves', () => {
    expect(checkProves('node --test test/a.test.js')).toBe('runs tests');
    expect(checkProves('python3 -m unittest tests/test_a.py')).toBe('runs tests');
    expect(checkProves(`node -e "JSON.parse(require('fs').readFileSync('package.json'))"`)).toBe(
      'parses a file',
    );
    expect(checkProves('python3 -c "from inventory.models import Item"')).toBe('loads a module');
    expect(checkProves('test -f src/index.md')).toBe('checks a file exists');
    expect(checkProves('make')).toBe('runs a command');
  });
});
