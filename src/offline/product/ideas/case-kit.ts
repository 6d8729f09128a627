import type { ProductIdea } from '../types.js';
import { CASE_KIT_ACCEPTANCE, CASE_KIT_HIDDEN_TESTS } from './case-kit-tests.js';

const r = String.raw;

/**
 * A text-case library and command published as an npm package of ES modules in `.js` files: its
 * first subtask writes `package.json`, whose `"type": "module"` every later module depends on.
 * The plausible wrong manifest (`"type": "commonjs"`) passes its own check, which only reads the
 * JSON, and breaks every later subtask's check (`SyntaxError` on `import`/`export`).
 */
export const caseKit: ProductIdea = {
  name: 'case-kit',
  idea: 'a text-case converter: a library and command that turn text into camelCase, snake_case or kebab-case (an npm package of ES modules in .js files, "type": "module", Node.js, no dependencies)',
  leaves: [
    {
      titles: ['Set up the package', 'Write package.json', 'Package manifest'],
      descriptions: [
        'Create package.json for the npm package case-kit: version 1.0.0, "type": "module" (every .js file is an ES module), "main": "src/index.js", a bin entry case-kit → bin/case-kit.js, and "scripts": {"test": "node --test"}.',
        'Write the package manifest package.json: name case-kit, version 1.0.0, ES modules ("type": "module"), main entry src/index.js, the command case-kit running bin/case-kit.js, npm test running node --test.',
      ],
      acceptance: [
        ['package.json is valid JSON', 'it names the package case-kit'],
        ['the manifest parses', 'name and version are set'],
      ],
      files: [
        {
          path: 'package.json',
          names: {
            description: [
              'Convert text between camelCase, snake_case and kebab-case.',
              'Text case conversion: camelCase, snake_case, kebab-case.',
              'camelCase, snake_case and kebab-case from any text.',
            ],
          },
          blocks: [
            {
              text: r`
{
  "name": "case-kit",
  "version": "1.0.0",
  "description": "$description$",
  "type": "module",
  "main": "src/index.js",
  "bin": { "case-kit": "bin/case-kit.js" },
  "scripts": { "test": "node --test" },
  "license": "MIT"
}`,
            },
          ],
        },
      ],
      dependsOn: [],
      check: `node -e "const p = JSON.parse(require('fs').readFileSync('package.json', 'utf8')); if (typeof p.name !== 'string' || typeof p.version !== 'string') process.exit(1)"`,
      exportSlip: ['name', 'nmae'],
      bugs: [
        {
          kind: 'edge-case',
          path: 'package.json',
          from: '"main": "src/index.js"',
          to: '"main": "index.js"',
        },
      ],
      misconception: {
        what: 'a CommonJS package ("type": "commonjs") where the task said ES modules',
        share: 0.7,
        edits: [{ path: 'package.json', from: '"type": "module"', to: '"type": "commonjs"' }],
        breaksLater: true,
      },
    },
    {
      titles: [
        'Split text into words',
        'Word splitting module',
        'Break text into lower-case words',
      ],
      descriptions: [
        'Create src/words.js exporting words(text): the lower-cased words of text, split at every character that is not a letter or digit, at a lower-case letter or digit followed by an upper-case one (helloWorld), and inside runs of capitals before a capitalised word (XMLHttpRequest → xml, http, request).',
        'src/words.js exports words(text) → array of lower-case words: separators are any non-alphanumeric characters; camelCase humps split words (fooBar → foo, bar; utf8String → utf8, string); an acronym before a capitalised word is its own word (HTMLParser → html, parser).',
      ],
      acceptance: [
        ['words("helloWorld") is ["hello", "world"]', 'separators split words'],
        ['camelCase humps split words', 'its test passes'],
      ],
      files: [
        {
          path: 'src/words.js',
          headers: ['Splitting text into words.', 'Words of a text, lower-cased.'],
          names: { spaced: ['spaced', 'marked', 'split'] },
          blocks: [
            {
              text: r`
//~ The lower-cased words of text: split at separators and at case humps.
export function words(text) {
  const $spaced$ = text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');
  return $spaced$
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}`,
            },
          ],
        },
        {
          path: 'test/words.test.js',
          blocks: [
            {
              text: r`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { words } from '../src/words.js';

test('splits at separators and humps', () => {
  assert.deepEqual(words('helloWorld'), ['hello', 'world']);
  assert.deepEqual(words('foo_bar-baz'), ['foo', 'bar', 'baz']);
});`,
            },
          ],
        },
      ],
      dependsOn: [0],
      check: 'node --test test/words.test.js',
      exportSlip: ['words', 'splitWords'],
      acceptanceTest: CASE_KIT_ACCEPTANCE.words,
      bugs: [
        {
          kind: 'off-by-one',
          path: 'src/words.js',
          from: '.replace(/([a-z0-9])([A-Z])/g',
          to: '.replace(/([a-z])([A-Z])/g',
        },
        { kind: 'edge-case', path: 'src/words.js', from: "    .filter((w) => w !== '')\n", to: '' },
      ],
      misconception: {
        what: 'acronyms are not split from the next word (XMLHttpRequest → xmlhttp, request)',
        share: 0.5,
        edits: [
          {
            path: 'src/words.js',
            from: r`
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');`,
            to: r`.replace(/([a-z0-9])([A-Z])/g, '$1 $2');`,
          },
        ],
      },
    },
    {
      titles: [
        'Write the case converters',
        'Case conversion functions',
        'camelCase, snake_case, kebab-case',
      ],
      descriptions: [
        'Create src/case.js exporting camelCase(text), snakeCase(text) and kebabCase(text), built on words from src/words.js: camelCase joins the words with every word but the first capitalised (hello world → helloWorld), snakeCase joins them with _, kebabCase with -.',
        'src/case.js exports camelCase, snakeCase and kebabCase, each taking text and using words() from src/words.js: camelCase → first word lower-case, later words capitalised, no separator (helloWorld); snakeCase → words joined by underscores; kebabCase → by hyphens.',
      ],
      acceptance: [
        ['snakeCase("helloWorld") is "hello_world"', 'kebabCase joins with -'],
        ['the three conversions work', 'its test passes'],
      ],
      files: [
        {
          path: 'src/case.js',
          headers: ['Case conversions.', 'camelCase, snake_case and kebab-case.'],
          names: { parts: ['parts', 'list', 'ws'] },
          blocks: [
            { text: r`import { words } from './words.js';` },
            {
              helper: true,
              text: r`
export function camelCase(text) {
  const $parts$ = words(text);
  return $parts$.map((w, i) => (i === 0 ? w : capitalise(w))).join('');
}`,
            },
            {
              helper: true,
              text: r`
export function snakeCase(text) {
  return words(text).join('_');
}`,
            },
            {
              helper: true,
              text: r`
export function kebabCase(text) {
  return words(text).join('-');
}`,
            },
            {
              helper: true,
              text: r`
function capitalise(word) {
  return word.charAt(0).toUpperCase() + word.slice(1);
}`,
            },
          ],
        },
        {
          path: 'test/case.test.js',
          blocks: [
            {
              text: r`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { camelCase, kebabCase, snakeCase } from '../src/case.js';

test('joins words', () => {
  assert.equal(snakeCase('helloWorld'), 'hello_world');
  assert.equal(kebabCase('Hello World'), 'hello-world');
  assert.equal(camelCase('hello world').toLowerCase(), 'helloworld');
});`,
            },
          ],
        },
      ],
      dependsOn: [1],
      check: 'node --test test/case.test.js',
      exportSlip: ['snakeCase', 'snake_case'],
      acceptanceTest: CASE_KIT_ACCEPTANCE.case,
      bugs: [
        {
          kind: 'off-by-one',
          path: 'src/case.js',
          from: 'word.charAt(0).toUpperCase() + word.slice(1)',
          to: 'word.charAt(0).toUpperCase() + word.slice(2)',
        },
        {
          kind: 'edge-case',
          path: 'src/case.js',
          from: '(i === 0 ? w : capitalise(w))',
          to: '(i === 0 ? w : w.toUpperCase())',
        },
      ],
      misconception: {
        what: 'camelCase capitalises the first word too (PascalCase)',
        share: 0.5,
        edits: [
          {
            path: 'src/case.js',
            from: '(i === 0 ? w : capitalise(w))',
            to: 'capitalise(w)',
          },
        ],
      },
    },
    {
      titles: ['Write the package entry point', 'Public API module', 'Re-export the library'],
      descriptions: [
        "Create src/index.js, the package's main module: it re-exports words from src/words.js and camelCase, snakeCase and kebabCase from src/case.js.",
        'src/index.js is the entry point package.json names: export { words } from ./words.js and { camelCase, snakeCase, kebabCase } from ./case.js.',
      ],
      acceptance: [
        ['importing src/index.js gives the four functions', 'its test passes'],
        ['the public API is exported', 'its test passes'],
      ],
      files: [
        {
          path: 'src/index.js',
          headers: ['The case-kit API.', 'Public entry point.'],
          blocks: [
            { helper: true, text: r`export { words } from './words.js';` },
            { helper: true, text: r`export { camelCase, kebabCase, snakeCase } from './case.js';` },
          ],
        },
        {
          path: 'test/index.test.js',
          blocks: [
            {
              text: r`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { camelCase, kebabCase } from '../src/index.js';

test('exports the converters', () => {
  assert.equal(typeof camelCase, 'function');
  assert.equal(kebabCase('a b'), 'a-b');
});`,
            },
          ],
        },
      ],
      dependsOn: [2],
      check: 'node --test test/index.test.js',
      exportSlip: ['kebabCase', 'kebabcase'],
      acceptanceTest: CASE_KIT_ACCEPTANCE.index,
      bugs: [
        {
          kind: 'edge-case',
          path: 'src/index.js',
          from: "export { words } from './words.js';",
          to: "export { words as split } from './words.js';",
        },
      ],
    },
    {
      titles: [
        'Write the case-kit command',
        'Command-line front end',
        'CLI converting its arguments',
      ],
      descriptions: [
        'Create bin/case-kit.js: `case-kit <camel|snake|kebab> <text…>` prints the words of its arguments converted with the functions of src/case.js and a newline; an unknown or missing style prints a usage line to stderr and exits with status 2.',
        'bin/case-kit.js is the command: its first argument names the style (camel, snake or kebab), the rest is the text (joined by spaces); it writes the converted text and a newline to stdout. Any other style, or none, writes "usage: case-kit camel|snake|kebab <text>" to stderr and exits 2.',
      ],
      acceptance: [
        ['case-kit snake Hello World prints hello_world', 'an unknown style exits 2'],
        ['prints the converted text', 'its test passes'],
      ],
      files: [
        {
          path: 'bin/case-kit.js',
          headers: ['case-kit: text in, converted case out.', 'Command-line entry point.'],
          names: { style: ['style', 'kind', 'mode'], convert: ['convert', 'fn', 'converter'] },
          blocks: [
            { text: r`import { camelCase, kebabCase, snakeCase } from '../src/case.js';` },
            {
              text: r`
const CONVERTERS = { camel: camelCase, snake: snakeCase, kebab: kebabCase };`,
            },
            {
              text: r`
function main(argv) {
  const [$style$, ...rest] = argv;
  const $convert$ = Object.hasOwn(CONVERTERS, $style$ ?? '') ? CONVERTERS[$style$] : undefined;
  if ($convert$ === undefined) {
    process.stderr.write('usage: case-kit camel|snake|kebab <text>\n');
    process.exitCode = 2;
    return;
  }
  process.stdout.write($convert$(rest.join(' ')) + '\n');
}`,
            },
            { text: r`main(process.argv.slice(2));` },
          ],
        },
        {
          path: 'test/cli.test.js',
          blocks: [
            {
              text: r`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

test('converts its arguments', () => {
  const out = execFileSync(process.execPath, ['bin/case-kit.js', 'snake', 'Hello', 'World'], { encoding: 'utf8' });
  assert.equal(out, 'hello_world\n');
});`,
            },
          ],
        },
      ],
      dependsOn: [2],
      check: 'node --test test/cli.test.js',
      codeCheck: 'node bin/case-kit.js snake a b',
      exportSlip: ['snakeCase', 'snake_case'],
      acceptanceTest: CASE_KIT_ACCEPTANCE.cli,
      bugs: [
        {
          kind: 'off-by-one',
          path: 'bin/case-kit.js',
          from: 'main(process.argv.slice(2));',
          to: 'main(process.argv.slice(1));',
        },
        {
          kind: 'edge-case',
          path: 'bin/case-kit.js',
          from: 'process.exitCode = 2;',
          to: 'process.exitCode = 0;',
        },
      ],
      misconception: {
        what: 'no check of the style: an unknown one crashes with a TypeError (status 1) instead of a usage line',
        share: 0.5,
        edits: [
          {
            path: 'bin/case-kit.js',
            from: r`const $convert$ = Object.hasOwn(CONVERTERS, $style$ ?? '') ? CONVERTERS[$style$] : undefined;
  if ($convert$ === undefined) {
    process.stderr.write('usage: case-kit camel|snake|kebab <text>\n');
    process.exitCode = 2;
    return;
  }`,
            to: r`const $convert$ = CONVERTERS[$style$];`,
          },
        ],
      },
    },
  ],
  hiddenTests: CASE_KIT_HIDDEN_TESTS,
};
