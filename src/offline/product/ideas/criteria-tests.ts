import type { AcceptanceTestSpec } from '../types.js';
import { pyTest } from './python-test.js';

const r = String.raw;

/** A node:test file importing `names` from `module`, with `body` as its tests. */
const nodeTest = (names: string, module: string, body: string) =>
  `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ${names} } from '${module}';
${body}`;

/** The inventory's Python test file `file` of one class, its test command with it. */
function pyAcceptance(
  file: string,
  imports: string,
  name: string,
  right: string,
  misconceived: string,
): AcceptanceTestSpec {
  return {
    path: `tests/${file}`,
    command: `python3 -m unittest tests/${file}`,
    content: pyTest(imports, name, right),
    misconceived: pyTest(imports, name, misconceived),
  };
}

/** A node:test file at `path`, run by `node --test path`. */
function nodeAcceptance(path: string, right: string, misconceived: string): AcceptanceTestSpec {
  return { path, command: `node --test ${path}`, content: right, misconceived };
}

const TODO_SERVER = (secondDelete: number) =>
  nodeTest(
    'createApp',
    '../src/server.mjs',
    r`import { createStore } from '../src/store.mjs';

test('POST, GET and DELETE by id; bad JSON and unknown ids', async () => {
  const server = createApp(createStore());
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = 'http://127.0.0.1:' + server.address().port;
  const call = async (path, init) => {
    // A deadline: a server that never answers fails the test instead of hanging it.
    const res = await fetch(base + path, { ...init, signal: AbortSignal.timeout(5000) });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
  };
  try {
    const made = await call('/todos', { method: 'POST', body: JSON.stringify({ title: 'milk' }) });
    assert.equal(made.status, 201);
    assert.equal((await call('/todos/' + made.body.id)).body.title, 'milk');
    assert.equal((await call('/todos', { method: 'POST', body: '{' })).status, 400);
    assert.equal((await call('/todos/' + made.body.id, { method: 'DELETE' })).status, 204);
    assert.equal((await call('/todos/' + made.body.id, { method: 'DELETE' })).status, ${secondDelete});
    assert.equal((await call('/todos/999')).status, 404);
  } finally {
    server.close();
  }
});
`,
  );

/**
 * What a right answer of the test role writes for a leaf of the JavaScript and Python ideas, from
 * the leaf's description and criteria alone (the behaviour they state, at the leaf's own test
 * path, failing without its code), and what a wrong answer that shares the leaf's misconception
 * writes instead (`misconceived`: it passes the misconceived code and fails the right one). Only
 * the leaves whose descriptions state the behaviour their misconception gets wrong; the others keep
 * their own test as the right answer (no stronger than their check).
 */
export const CRITERIA_TESTS = {
  /** csv-to-json's `toObjects`: "" for missing cells, single-empty-field rows skipped. */
  convert: nodeAcceptance(
    'test/convert.test.mjs',
    nodeTest(
      'toObjects',
      '../src/convert.mjs',
      r`
test('rows keyed by the header, "" for missing cells, blank rows skipped', () => {
  assert.deepEqual(toObjects([['a'], ['1']]), [{ a: '1' }]);
  assert.deepEqual(toObjects([['a', 'b'], ['1']]), [{ a: '1', b: '' }]);
  assert.deepEqual(toObjects([['a'], [''], ['2']]), [{ a: '2' }]);
});
`,
    ),
    nodeTest(
      'toObjects',
      '../src/convert.mjs',
      r`
test('rows keyed by the header, missing cells left out of the JSON', () => {
  assert.deepEqual(toObjects([['a'], ['1']]), [{ a: '1' }]);
  assert.deepEqual(JSON.parse(JSON.stringify(toObjects([['a', 'b'], ['1']]))), [{ a: '1' }]);
});
`,
    ),
  ),
  /** expr-eval's `evaluate`: left to right, precedence, errors. */
  evaluate: nodeAcceptance(
    'test/evaluate.test.mjs',
    nodeTest(
      'evaluate',
      '../src/evaluate.mjs',
      r`
test('precedence, left to right, parentheses, unary minus', () => {
  assert.equal(evaluate('2*(3+4)'), 14);
  assert.equal(evaluate('10 - 4 - 3'), 3);
  assert.equal(evaluate('8 / 4 / 2'), 1);
  assert.equal(evaluate('-2 + 5'), 3);
});

test('division by zero and malformed expressions throw', () => {
  assert.throws(() => evaluate('1/0'), RangeError);
  assert.throws(() => evaluate('1 +'), SyntaxError);
});
`,
    ),
    nodeTest(
      'evaluate',
      '../src/evaluate.mjs',
      r`
test('precedence and grouping of sums', () => {
  assert.equal(evaluate('2*(3+4)'), 14);
  assert.equal(evaluate('10 - 4 - 3'), 9);
});
`,
    ),
  ),
  /** text-stats' `topWords`: by count, then alphabetically, lower-cased. */
  rank: nodeAcceptance(
    'test/rank.test.mjs',
    nodeTest(
      'topWords',
      '../src/rank.mjs',
      r`
test('the most frequent words, lower-cased, ties alphabetical', () => {
  assert.deepEqual(topWords('b a B', 5), [['b', 2], ['a', 1]]);
  assert.deepEqual(topWords('pear apple Pear fig apple', 2), [['apple', 2], ['pear', 2]]);
  assert.deepEqual(topWords("it's z y", 3), [["it's", 1], ['y', 1], ['z', 1]]);
});
`,
    ),
    nodeTest(
      'topWords',
      '../src/rank.mjs',
      r`
test('the most frequent words, lower-cased, in the order first seen', () => {
  assert.deepEqual(topWords('pear apple Pear fig apple', 2), [['pear', 2], ['apple', 2]]);
});
`,
    ),
  ),
  /** todo-api's server: the routes and their statuses. */
  server: nodeAcceptance('test/server.test.mjs', TODO_SERVER(404), TODO_SERVER(204)),
  /** inventory's money: exact cents, two decimals at most. */
  money: pyAcceptance(
    'test_money.py',
    'from inventory.money import format_cents, parse_price',
    'Money',
    r`  def test_format(self):
    self.assertEqual(format_cents(1234), '$12.34')
    self.assertEqual(format_cents(-150), '-$1.50')

  def test_parse(self):
    self.assertEqual(parse_price('12.34'), 1234)
    self.assertEqual(parse_price('$3'), 300)
    self.assertEqual(parse_price('0.5'), 50)
    self.assertEqual(parse_price('0.29'), 29)
    for bad in ['abc', '1.234']:
      with self.assertRaises(ValueError):
        parse_price(bad)
`,
    // The expected value worked out the same wrong way, through floating point (1998 cents).
    r`  def test_parse(self):
    self.assertEqual(parse_price('12.50'), 1250)
    self.assertEqual(parse_price('19.99'), int(float('19.99') * 100))
`,
  ),
  /** inventory's CSV export: quoted as the csv module quotes. */
  csvExport: pyAcceptance(
    'test_csv_export.py',
    'from inventory.csv_export import to_csv\nfrom inventory.models import Item',
    'CsvExport',
    r`  def test_rows(self):
    text = to_csv([
      Item(sku='A1', name='Pen', quantity=3, price_cents=120),
      Item(sku='B2', name='Ink, blue', quantity=0, price_cents=1999),
    ])
    self.assertEqual(text, 'sku,name,quantity,price\nA1,Pen,3,$1.20\nB2,"Ink, blue",0,$19.99\n')
`,
    r`  def test_rows(self):
    text = to_csv([Item(sku='B2', name='Ink, blue', quantity=0, price_cents=1999)])
    self.assertEqual(text, 'sku,name,quantity,price\nB2,Ink, blue,0,$19.99\n')
`,
  ),
  /** inventory's low stock: at most the threshold, by quantity then sku. */
  lowStock: pyAcceptance(
    'test_low_stock.py',
    'from inventory.models import Item\nfrom inventory.low_stock import low_stock',
    'LowStock',
    r`  def test_low(self):
    pen = Item(sku='A1', name='Pen', quantity=5, price_cents=150)
    cap = Item(sku='A0', name='Cap', quantity=5, price_cents=10)
    ink = Item(sku='B2', name='Ink', quantity=1, price_cents=99)
    pad = Item(sku='C3', name='Pad', quantity=6, price_cents=99)
    self.assertEqual(low_stock([pen, pad, cap, ink], 5), [ink, cap, pen])
    self.assertEqual(low_stock([pad]), [])
`,
    r`  def test_low(self):
    pen = Item(sku='A1', name='Pen', quantity=5, price_cents=150)
    ink = Item(sku='B2', name='Ink', quantity=1, price_cents=99)
    self.assertEqual(low_stock([pen, ink], 5), [ink])
`,
  ),
  /** inventory's commands: add refuses an invalid item. */
  commands: pyAcceptance(
    'test_commands.py',
    'import argparse\nimport io\nimport os\nimport tempfile\nfrom inventory.commands import run_command',
    'Commands',
    r`  def test_add_refuses_an_invalid_item(self):
    with tempfile.TemporaryDirectory() as d:
      path = os.path.join(d, 'inv.json')
      out = io.StringIO()
      add = argparse.Namespace(file=path, command='add', sku='A1', name='Pen', quantity=3, price='1.20')
      self.assertEqual(run_command(add, out), 0)
      bad = argparse.Namespace(file=path, command='add', sku='B2', name=' ', quantity=-1, price='2')
      self.assertEqual(run_command(bad, out), 1)
      self.assertIn('error: ', out.getvalue())
      listed = io.StringIO()
      self.assertEqual(run_command(argparse.Namespace(file=path, command='list'), listed), 0)
      self.assertEqual(listed.getvalue(), 'A1  Pen  3  $1.20\n')
`,
    r`  def test_add_saves(self):
    with tempfile.TemporaryDirectory() as d:
      path = os.path.join(d, 'inv.json')
      out = io.StringIO()
      add = argparse.Namespace(file=path, command='add', sku='B2', name=' ', quantity=-1, price='2')
      self.assertEqual(run_command(add, out), 0)
      self.assertIn('added B2', out.getvalue())
`,
  ),
} satisfies Record<string, AcceptanceTestSpec>;
