import type { AcceptanceTestSpec, HiddenTest } from '../types.js';

const r = String.raw;

/**
 * The acceptance tests a right answer of the test role writes for case-kit's leaves, from each
 * leaf's description and criteria alone (the examples they name): each sits at the leaf's own
 * test path and fails without its code. The manifest's leaf has none (a test is not among its files).
 */
export const CASE_KIT_ACCEPTANCE = {
  words: {
    path: 'test/words.test.js',
    command: 'node --test test/words.test.js',
    content: r`import { test } from 'node:test';
import assert from 'node:assert/strict';
import { words } from '../src/words.js';

test('words: separators, humps, digits and acronyms', () => {
  assert.deepEqual(words('helloWorld'), ['hello', 'world']);
  assert.deepEqual(words('foo_bar-baz'), ['foo', 'bar', 'baz']);
  assert.deepEqual(words('__private__name'), ['private', 'name']);
  assert.deepEqual(words('utf8String'), ['utf8', 'string']);
  assert.deepEqual(words('XMLHttpRequest'), ['xml', 'http', 'request']);
  assert.deepEqual(words('HTMLParser'), ['html', 'parser']);
});
`,
  },
  case: {
    path: 'test/case.test.js',
    command: 'node --test test/case.test.js',
    content: r`import { test } from 'node:test';
import assert from 'node:assert/strict';
import { camelCase, kebabCase, snakeCase } from '../src/case.js';

test('camelCase, snakeCase and kebabCase', () => {
  assert.equal(camelCase('hello world'), 'helloWorld');
  assert.equal(camelCase('hello big world'), 'helloBigWorld');
  assert.equal(snakeCase('helloWorld'), 'hello_world');
  assert.equal(kebabCase('Hello World'), 'hello-world');
});
`,
  },
  index: {
    path: 'test/index.test.js',
    command: 'node --test test/index.test.js',
    content: r`import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as api from '../src/index.js';

test('the entry point exports words and the three converters', () => {
  assert.deepEqual(api.words('a b'), ['a', 'b']);
  assert.equal(api.camelCase('a b'), 'aB');
  assert.equal(api.snakeCase('a b'), 'a_b');
  assert.equal(api.kebabCase('a b'), 'a-b');
});
`,
  },
  cli: {
    path: 'test/cli.test.js',
    command: 'node --test test/cli.test.js',
    content: r`import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

const run = (args) => spawnSync(process.execPath, ['bin/case-kit.js', ...args], { encoding: 'utf8' });

test('converts its arguments, and refuses an unknown or missing style with status 2', () => {
  assert.equal(run(['snake', 'Hello', 'World']).stdout, 'hello_world\n');
  const bad = run(['shout', 'x']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /usage/);
  assert.equal(run([]).status, 2);
});
`,
  },
} as const satisfies Record<string, AcceptanceTestSpec>;

/** case-kit's hidden tests: run on the landed product by the bench, never shown to MAKER. */
export const CASE_KIT_HIDDEN_TESTS: readonly HiddenTest[] = [
  {
    path: 'case-kit.test.mjs',
    content: r`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';

test('package.json: an ES module package whose main entry is the API', async () => {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
  assert.equal(pkg.name, 'case-kit');
  assert.equal(pkg.type, 'module');
  const api = await import(pathToFileURL(resolve(pkg.main)).href);
  assert.equal(api.camelCase('hello world'), 'helloWorld');
  assert.deepEqual(api.words('a b'), ['a', 'b']);
});

test('words: separators, humps, digits and acronyms', async () => {
  const { words } = await import('../src/words.js');
  assert.deepEqual(words('XMLHttpRequest'), ['xml', 'http', 'request']);
  assert.deepEqual(words('utf8String'), ['utf8', 'string']);
  assert.deepEqual(words('__private__name'), ['private', 'name']);
  assert.deepEqual(words(''), []);
});

test('camelCase, snakeCase, kebabCase', async () => {
  const { camelCase, snakeCase, kebabCase } = await import('../src/case.js');
  assert.equal(camelCase('hello big world'), 'helloBigWorld');
  assert.equal(camelCase('HTMLParser'), 'htmlParser');
  assert.equal(snakeCase('HelloWorld'), 'hello_world');
  assert.equal(kebabCase('foo_bar baz'), 'foo-bar-baz');
});

test('case-kit: converts, and refuses an unknown style', () => {
  const run = (args) => spawnSync(process.execPath, ['bin/case-kit.js', ...args], { encoding: 'utf8' });
  assert.equal(run(['kebab', 'Hello', 'World']).stdout, 'hello-world\n');
  assert.equal(run(['camel', 'make', 'it', 'so']).stdout, 'makeItSo\n');
  const bad = run(['shout', 'x']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /usage/);
});
`,
  },
];
