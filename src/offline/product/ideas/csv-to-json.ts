import type { ProductIdea } from '../types.js';
import { CRITERIA_TESTS } from './criteria-tests.js';

const r = String.raw;

/** A command-line CSV to JSON converter: a parser, a rows-to-objects step, and the CLI. */
export const csvToJson: ProductIdea = {
  name: 'csv-to-json',
  idea: 'a command-line tool that converts CSV files to JSON (Node.js, ES modules, no dependencies)',
  leaves: [
    {
      titles: ['Write the CSV parser', 'Parse CSV text into rows', 'CSV parsing module'],
      descriptions: [
        'Create src/csv.mjs exporting parseCsv(text): an array of rows, each an array of field strings. Handle quoted fields (commas and newlines inside quotes, "" for a quote), LF and CRLF line ends, and a missing final newline.',
        'In src/csv.mjs, export a function parseCsv(text) that splits CSV text into rows of string fields, honouring double-quoted fields with embedded commas and doubled quotes, both \\n and \\r\\n line endings, and input with or without a trailing newline.',
      ],
      acceptance: [
        ['parseCsv("a,b\\n1,2\\n") gives [["a","b"],["1","2"]]', 'quoted fields keep commas'],
        ['rows and fields are split correctly', 'its test passes'],
      ],
      files: [
        {
          path: 'src/csv.mjs',
          headers: ['A small RFC 4180 CSV parser.', 'CSV parsing.'],
          names: {
            rows: ['rows', 'records', 'out'],
            row: ['row', 'current'],
            field: ['field', 'cell', 'value'],
          },
          blocks: [
            {
              text: r`
//~ Splits CSV text into rows of fields.
export function parseCsv(text) {
  const $rows$ = [];
  let $row$ = [];
  let $field$ = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        $field$ += '"';
        i++;
      } else if (ch === '"') {
        quoted = false;
      } else {
        $field$ += ch;
      }
    } else if (ch === '"') {
      quoted = true;
    } else if (ch === ',') {
      $row$.push($field$);
      $field$ = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      $row$.push($field$);
      $rows$.push($row$);
      $row$ = [];
      $field$ = '';
    } else {
      $field$ += ch;
    }
  }
  if ($field$ !== '' || $row$.length > 0) {
    $row$.push($field$);
    $rows$.push($row$);
  }
  return $rows$;
}`,
            },
          ],
        },
        {
          path: 'test/csv.test.mjs',
          blocks: [
            {
              text: r`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCsv } from '../src/csv.mjs';

test('parses rows and quoted fields', () => {
  assert.deepEqual(parseCsv('a,b\n1,2\n'), [['a', 'b'], ['1', '2']]);
  assert.deepEqual(parseCsv('x\n"1,5"\n'), [['x'], ['1,5']]);
});`,
            },
          ],
        },
      ],
      dependsOn: [],
      check: 'node --test test/csv.test.mjs',
      exportSlip: ['parseCsv', 'parseCSV'],
      bugs: [
        {
          kind: 'off-by-one',
          path: 'src/csv.mjs',
          from: 'i < text.length;',
          to: 'i < text.length - 1;',
        },
        {
          kind: 'edge-case',
          path: 'src/csv.mjs',
          from: r`} else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;`,
          to: r`} else if (ch === '\n') {`,
        },
      ],
    },
    {
      titles: ['Turn rows into objects', 'Map CSV rows to records', 'Rows-to-objects conversion'],
      descriptions: [
        'Create src/convert.mjs exporting toObjects(rows): the first row is the header; every later row becomes an object keyed by the header, with "" for missing cells. Rows that are a single empty field are skipped.',
        'src/convert.mjs exports toObjects(rows), which uses rows[0] as column names and returns one object per remaining row (missing cells become empty strings, blank lines are ignored).',
      ],
      acceptance: [
        ['toObjects([["a"],["1"]]) gives [{"a":"1"}]', 'missing cells are ""'],
        ['header keys each record', 'its test passes'],
      ],
      files: [
        {
          path: 'src/convert.mjs',
          headers: ['Rows to records.', 'Header-keyed objects from CSV rows.'],
          names: {
            header: ['header', 'columns', 'keys'],
            body: ['body', 'rest', 'dataRows'],
            record: ['record', 'obj', 'entry'],
          },
          blocks: [
            {
              text: r`
//~ The first row names the columns; every other non-blank row becomes an object.
export function toObjects(rows) {
  if (rows.length === 0) return [];
  const [$header$, ...$body$] = rows;
  return $body$.filter((row) => !isBlank(row)).map((row) => toRecord($header$, row));
}`,
            },
            {
              helper: true,
              text: r`
function toRecord(header, row) {
  const $record$ = {};
  header.forEach((name, i) => {
    $record$[name] = row[i] ?? '';
  });
  return $record$;
}`,
            },
            {
              helper: true,
              text: r`
function isBlank(row) {
  return row.length === 1 && row[0] === '';
}`,
            },
          ],
        },
        {
          path: 'test/convert.test.mjs',
          blocks: [
            {
              text: r`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toObjects } from '../src/convert.mjs';

test('keys rows by the header', () => {
  assert.deepEqual(toObjects([['a', 'b'], ['1', '2']]), [{ a: '1', b: '2' }]);
});`,
            },
          ],
        },
      ],
      dependsOn: [],
      check: 'node --test test/convert.test.mjs',
      exportSlip: ['toObjects', 'rowsToObjects'],
      bugs: [
        {
          kind: 'off-by-one',
          path: 'src/convert.mjs',
          from: 'const [$header$, ...$body$] = rows;',
          to: 'const [$header$, , ...$body$] = rows;',
        },
        { kind: 'edge-case', path: 'src/convert.mjs', from: "row[i] ?? ''", to: 'row[i]' },
      ],
      acceptanceTest: CRITERIA_TESTS.convert,
      misconception: {
        what: 'a missing cell becomes undefined (dropped from the JSON) instead of ""',
        share: 0.5,
        edits: [{ path: 'src/convert.mjs', from: "row[i] ?? ''", to: 'row[i]' }],
      },
    },
    {
      titles: ['Write the csv2json command', 'Command-line entry point', 'CLI that prints JSON'],
      descriptions: [
        'Create bin/csv2json.mjs: read the CSV file named by the first argument (or stdin without one), print JSON.stringify(toObjects(parseCsv(text)), null, 2) and a newline; on a file that cannot be read, print an error to stderr and exit 1.',
        'bin/csv2json.mjs is the command: it reads its first argument as a path (stdin when absent), converts with parseCsv from src/csv.mjs and toObjects from src/convert.mjs, and writes the objects as JSON indented by 2 spaces; unreadable input exits with status 1 and a message on stderr.',
      ],
      acceptance: [
        ['node bin/csv2json.mjs data.csv prints the JSON array', 'a missing file exits 1'],
        ['reads stdin without an argument', 'its test passes'],
      ],
      files: [
        {
          path: 'bin/csv2json.mjs',
          headers: ['csv2json: CSV in, JSON out.', 'Command-line entry point.'],
          names: { path: ['path', 'file', 'input'], text: ['text', 'source', 'csv'] },
          blocks: [
            {
              text: r`
import { readFileSync } from 'node:fs';
import { parseCsv } from '../src/csv.mjs';
import { toObjects } from '../src/convert.mjs';`,
            },
            {
              helper: true,
              text: r`
function readInput(path) {
  return path === undefined ? readFileSync(0, 'utf8') : readFileSync(path, 'utf8');
}`,
            },
            {
              helper: true,
              text: r`
function main(argv) {
  const [$path$] = argv;
  let $text$;
  try {
    $text$ = readInput($path$);
  } catch (error) {
    process.stderr.write('csv2json: cannot read ' + $path$ + ': ' + error.message + '\n');
    process.exitCode = 1;
    return;
  }
  process.stdout.write(JSON.stringify(toObjects(parseCsv($text$)), null, 2) + '\n');
}`,
            },
            { text: r`main(process.argv.slice(2));` },
          ],
        },
        {
          path: 'test/cli.test.mjs',
          blocks: [
            {
              text: r`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

test('converts stdin', () => {
  const out = execFileSync(process.execPath, ['bin/csv2json.mjs'], { input: 'a\n1\n', encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), [{ a: '1' }]);
});`,
            },
          ],
        },
      ],
      dependsOn: [0, 1],
      check: 'node --test test/cli.test.mjs',
      exportSlip: ['toObjects', 'toObject'],
      bugs: [
        {
          kind: 'off-by-one',
          path: 'bin/csv2json.mjs',
          from: 'process.argv.slice(2)',
          to: 'process.argv.slice(3)',
        },
        {
          kind: 'edge-case',
          path: 'bin/csv2json.mjs',
          from: 'process.exitCode = 1;',
          to: 'process.exitCode = 0;',
        },
      ],
    },
  ],
  hiddenTests: [
    {
      path: 'csv-to-json.test.mjs',
      content: r`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCsv } from '../src/csv.mjs';
import { toObjects } from '../src/convert.mjs';

test('parseCsv: quotes, doubled quotes, CRLF, no final newline', () => {
  assert.deepEqual(parseCsv('a,b\r\n"x, y","say ""hi"""\r\n3,4'), [['a', 'b'], ['x, y', 'say "hi"'], ['3', '4']]);
  assert.deepEqual(parseCsv('q\n"line\nbreak"\n'), [['q'], ['line\nbreak']]);
  assert.deepEqual(parseCsv('only'), [['only']]);
});

test('toObjects: header keys, missing cells, blank lines', () => {
  assert.deepEqual(toObjects([['a', 'b'], ['1'], [''], ['2', '3']]), [{ a: '1', b: '' }, { a: '2', b: '3' }]);
  assert.deepEqual(toObjects([['a']]), []);
  assert.deepEqual(toObjects([]), []);
});

test('csv2json: a file, stdin and a missing file', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'csv-hidden-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'in.csv');
  writeFileSync(file, 'name,age\r\n"Lee, Ann",31\r\nBo,4');
  const out = execFileSync(process.execPath, ['bin/csv2json.mjs', file], { encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), [{ name: 'Lee, Ann', age: '31' }, { name: 'Bo', age: '4' }]);
  assert.match(out, /^\[\n  \{/);
  const piped = execFileSync(process.execPath, ['bin/csv2json.mjs'], { input: 'k\nv\n', encoding: 'utf8' });
  assert.deepEqual(JSON.parse(piped), [{ k: 'v' }]);
  const missing = spawnSync(process.execPath, ['bin/csv2json.mjs', join(dir, 'nope.csv')], { encoding: 'utf8' });
  assert.equal(missing.status, 1);
  assert.notEqual(missing.stderr, '');
});
`,
    },
  ],
};
