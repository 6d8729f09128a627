import type { ProductIdea } from '../types.js';
import { CRITERIA_TESTS } from './criteria-tests.js';

const r = String.raw;

/**
 * A text-statistics tool: a counting module, a word-ranking module and a command that prints their
 * figures as JSON.
 */
export const textStats: ProductIdea = {
  name: 'text-stats',
  idea: 'a text-statistics tool: counts lines, words and characters and lists the most frequent words (Node.js, ES modules, no dependencies)',
  leaves: [
    {
      titles: [
        'Write the statistics library',
        'Count lines, words and characters',
        'Text statistics module',
      ],
      descriptions: [
        'Create src/stats.mjs exporting textStats(text) → {lines, words, chars}: lines are newline-separated lines (a final newline does not start a new line, "" has 0 lines), words are runs of letters, digits or apostrophes, chars is text.length.',
        'src/stats.mjs exports textStats(text) returning {lines, words, chars} (empty text has 0 lines, a trailing newline adds none, words are sequences of letters/digits/apostrophes, chars is the string length).',
      ],
      acceptance: [
        ['textStats("a b\\nc\\n") is {lines: 2, words: 3, chars: 6}', 'its test passes'],
        ['counts are right on empty text', 'a trailing newline adds no line'],
      ],
      files: [
        {
          path: 'src/stats.mjs',
          headers: ['Text statistics.', 'Counting lines, words and characters.'],
          names: {
            list: ['list', 'words', 'tokens'],
            total: ['total', 'lineCount', 'n'],
          },
          blocks: [
            {
              text: r`
export function textStats(text) {
  return { lines: countLines(text), words: wordsOf(text).length, chars: text.length };
}`,
            },
            {
              helper: true,
              text: r`
function wordsOf(text) {
  const $list$ = text.match(/[A-Za-z0-9']+/g);
  return $list$ === null ? [] : $list$;
}`,
            },
            {
              helper: true,
              text: r`
function countLines(text) {
  if (text === '') return 0;
  const $total$ = text.split('\n').length;
  return text.endsWith('\n') ? $total$ - 1 : $total$;
}`,
            },
          ],
        },
        {
          path: 'test/stats.test.mjs',
          blocks: [
            {
              text: r`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { textStats } from '../src/stats.mjs';

test('counts lines, words and characters', () => {
  assert.deepEqual(textStats('a b\nc\n'), { lines: 2, words: 3, chars: 6 });
});`,
            },
          ],
        },
      ],
      dependsOn: [],
      check: 'node --test test/stats.test.mjs',
      exportSlip: ['textStats', 'textStatistics'],
      bugs: [
        {
          kind: 'off-by-one',
          path: 'src/stats.mjs',
          from: "return text.endsWith('\\n') ? $total$ - 1 : $total$;",
          to: 'return $total$ - 1;',
        },
        { kind: 'edge-case', path: 'src/stats.mjs', from: "if (text === '') return 0;\n", to: '' },
      ],
    },
    {
      titles: ['Write the word ranking', 'Rank the most frequent words', 'Word frequency module'],
      descriptions: [
        'Create src/rank.mjs exporting topWords(text, n) → the n most frequent lower-cased words as [word, count] pairs, by count then alphabetically; words are runs of letters, digits or apostrophes.',
        'src/rank.mjs exports topWords(text, n) returning up to n [word, count] pairs of lower-cased words (sequences of letters/digits/apostrophes), most frequent first, ties in alphabetical order.',
      ],
      acceptance: [
        ['topWords ranks by count', 'ties are alphabetical'],
        ['words are lower-cased', 'its test passes'],
      ],
      files: [
        {
          path: 'src/rank.mjs',
          headers: ['Word frequencies.', 'The most frequent words of a text.'],
          names: {
            counts: ['counts', 'freq', 'tally'],
            found: ['found', 'matches', 'all'],
          },
          blocks: [
            {
              text: r`
//~ The n most frequent words, most frequent first, ties alphabetical.
export function topWords(text, n) {
  const $counts$ = new Map();
  for (const word of wordsIn(text)) {
    const key = word.toLowerCase();
    $counts$.set(key, ($counts$.get(key) ?? 0) + 1);
  }
  return [...$counts$.entries()].sort(byCountThenWord).slice(0, n);
}`,
            },
            {
              helper: true,
              text: r`
function byCountThenWord(a, b) {
  return b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
}`,
            },
            {
              helper: true,
              text: r`
function wordsIn(text) {
  const $found$ = text.match(/[A-Za-z0-9']+/g);
  return $found$ ?? [];
}`,
            },
          ],
        },
        {
          path: 'test/rank.test.mjs',
          blocks: [
            {
              text: r`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { topWords } from '../src/rank.mjs';

test('ranks words by count', () => {
  assert.deepEqual(topWords('b a B', 5), [['b', 2], ['a', 1]]);
});`,
            },
          ],
        },
      ],
      dependsOn: [],
      check: 'node --test test/rank.test.mjs',
      exportSlip: ['topWords', 'topWord'],
      bugs: [
        {
          kind: 'off-by-one',
          path: 'src/rank.mjs',
          from: '.slice(0, n);',
          to: '.slice(0, n + 1);',
        },
        {
          kind: 'edge-case',
          path: 'src/rank.mjs',
          from: 'return b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);',
          to: 'return b[1] - a[1];',
        },
      ],
      acceptanceTest: CRITERIA_TESTS.rank,
      misconception: {
        what: 'ties in count left in the order first seen, not alphabetical',
        share: 0.5,
        edits: [
          {
            path: 'src/rank.mjs',
            from: 'return b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);',
            to: 'return b[1] - a[1];',
          },
        ],
      },
    },
    {
      titles: ['Write the textstats command', 'Command-line front end', 'CLI printing statistics'],
      descriptions: [
        'Create bin/textstats.mjs: read the file named by the first argument (stdin without one), and print JSON {lines, words, chars, top}: the counts of textStats from src/stats.mjs, and top = topWords(text, N) from src/rank.mjs, N from "--top N" (default 3). An unreadable file exits 1 with a message on stderr.',
        'bin/textstats.mjs reads a path argument or stdin, takes an optional --top N (default 3), and writes one JSON object {lines, words, chars, top} built with textStats (src/stats.mjs) and topWords (src/rank.mjs); if the input cannot be read it reports on stderr and exits with status 1.',
      ],
      acceptance: [
        ['prints {lines, words, chars, top}', '--top 1 gives one word'],
        ['stdin works', 'its test passes'],
      ],
      files: [
        {
          path: 'bin/textstats.mjs',
          headers: ['textstats: statistics of a text file.', 'Command-line entry.'],
          names: { top: ['top', 'limit', 'count'], text: ['text', 'input', 'content'] },
          blocks: [
            {
              text: r`
import { readFileSync } from 'node:fs';
import { textStats } from '../src/stats.mjs';
import { topWords } from '../src/rank.mjs';`,
            },
            {
              helper: true,
              text: r`
function parseArgs(argv) {
  let $top$ = 3;
  let path;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--top') {
      $top$ = Number(argv[i + 1]);
      i++;
    } else {
      path = argv[i];
    }
  }
  return { top: $top$, path };
}`,
            },
            {
              helper: true,
              text: r`
function main(argv) {
  const { top, path } = parseArgs(argv);
  let $text$;
  try {
    $text$ = readFileSync(path ?? 0, 'utf8');
  } catch (error) {
    process.stderr.write('textstats: ' + error.message + '\n');
    process.exitCode = 1;
    return;
  }
  process.stdout.write(JSON.stringify({ ...textStats($text$), top: topWords($text$, top) }) + '\n');
}`,
            },
            { text: r`main(process.argv.slice(2));` },
          ],
        },
        {
          path: 'test/textstats-cli.test.mjs',
          blocks: [
            {
              text: r`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

test('prints statistics of stdin', () => {
  const out = execFileSync(process.execPath, ['bin/textstats.mjs'], { input: 'hi hi\n', encoding: 'utf8' });
  assert.equal(JSON.parse(out).words, 2);
});`,
            },
          ],
        },
      ],
      dependsOn: [0, 1],
      check: 'node --test test/textstats-cli.test.mjs',
      exportSlip: ['topWords', 'topWord'],
      bugs: [
        {
          kind: 'off-by-one',
          path: 'bin/textstats.mjs',
          from: '$top$ = Number(argv[i + 1]);',
          to: '$top$ = Number(argv[i + 1]) - 1;',
        },
        { kind: 'edge-case', path: 'bin/textstats.mjs', from: 'process.exitCode = 1;', to: '' },
      ],
    },
  ],
  hiddenTests: [
    {
      path: 'text-stats.test.mjs',
      content: r`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { textStats } from '../src/stats.mjs';
import { topWords } from '../src/rank.mjs';

test('textStats: empty text, final newline, apostrophes', () => {
  assert.deepEqual(textStats(''), { lines: 0, words: 0, chars: 0 });
  assert.deepEqual(textStats("it's here\nand there"), { lines: 2, words: 4, chars: 19 });
  assert.deepEqual(textStats('x\n\n'), { lines: 2, words: 1, chars: 3 });
});

test('topWords: case folding, ties alphabetical, exactly n', () => {
  assert.deepEqual(topWords('The cat the dog A dog', 2), [['dog', 2], ['the', 2]]);
  assert.deepEqual(topWords('b a c', 2), [['a', 1], ['b', 1]]);
  assert.deepEqual(topWords('', 3), []);
});

test('textstats: a file with --top, and a missing file', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'stats-hidden-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'in.txt');
  writeFileSync(file, 'one two two\nthree three three\n');
  const out = JSON.parse(execFileSync(process.execPath, ['bin/textstats.mjs', '--top', '2', file], { encoding: 'utf8' }));
  assert.deepEqual(out, { lines: 2, words: 6, chars: 30, top: [['three', 3], ['two', 2]] });
  const missing = spawnSync(process.execPath, ['bin/textstats.mjs', join(dir, 'none.txt')], { encoding: 'utf8' });
  assert.equal(missing.status, 1);
});
`,
    },
  ],
};
