import type { LeafSpec } from '../types.js';
import { CRITERIA_TESTS } from './criteria-tests.js';
import { pyTest } from './python-test.js';

const r = String.raw;
/** A dollar sign before a brace, which a template literal would take for a placeholder. */
const D = '$';

/**
 * The inventory's core and storage leaves (0–4): the item model, money, validation, the JSON
 * store and the CSV export. The model's plausible wrong answer (`qty` for `quantity`) imports
 * fine, which is all its check tries, and breaks every later leaf that reads an item's quantity.
 */
export const INVENTORY_CORE: readonly LeafSpec[] = [
  {
    titles: ['Write the item model', 'Define the Item data class', 'Stock item model'],
    descriptions: [
      'Create inventory/models.py with a dataclass Item(sku: str, name: str, quantity: int, price_cents: int, category: str = "general"), item_from_dict(data) building an Item from a dict with those keys (category optional) and item_to_dict(item) giving the dict back.',
      'inventory/models.py: the Item dataclass with fields sku, name, quantity, price_cents and category (default "general"), plus item_from_dict(data) → Item and item_to_dict(item) → dict using the same field names as keys.',
    ],
    acceptance: [
      ['inventory.models imports', 'Item has the five fields'],
      ['the module imports cleanly', 'item_from_dict and item_to_dict exist'],
    ],
    files: [
      {
        path: 'inventory/models.py',
        headers: ['The stock item model.', 'Items and their dict form.'],
        names: { data: ['data', 'raw', 'record'] },
        blocks: [
          { text: r`from dataclasses import asdict, dataclass` },
          {
            text: r`
#~ One stock-keeping unit of the shop.
@dataclass
class Item:
  sku: str
  name: str
  quantity: int
  price_cents: int
  category: str = 'general'`,
          },
          {
            helper: true,
            text: r`
def item_from_dict($data$):
  return Item(
    sku=str($data$['sku']),
    name=str($data$['name']),
    quantity=int($data$['quantity']),
    price_cents=int($data$['price_cents']),
    category=str($data$.get('category', 'general')),
  )`,
          },
          {
            helper: true,
            text: r`
def item_to_dict(item):
  return asdict(item)`,
          },
        ],
      },
    ],
    dependsOn: [],
    check: 'python3 -c "from inventory.models import Item, item_from_dict, item_to_dict"',
    exportSlip: ['item_from_dict', 'item_from_json'],
    bugs: [
      {
        kind: 'edge-case',
        path: 'inventory/models.py',
        from: "category=str($data$.get('category', 'general')),",
        to: "category=str($data$['category']),",
      },
    ],
    misconception: {
      what: 'the quantity field named qty, where the task said quantity',
      share: 0.7,
      edits: [
        { path: 'inventory/models.py', from: '  quantity: int', to: '  qty: int' },
        {
          path: 'inventory/models.py',
          from: "quantity=int($data$['quantity']),",
          to: "qty=int($data$['quantity']),",
        },
      ],
      breaksLater: true,
    },
  },
  {
    titles: ['Write the money helpers', 'Format and parse prices', 'Money formatting module'],
    descriptions: [
      'Create inventory/money.py with format_cents(cents) → "$12.34" (negative amounts as "-$1.50", always two decimals) and parse_price(text) → cents as an int from "12.34", "$3" or "0.5" (at most two decimals, no floating point; anything else raises ValueError).',
      'inventory/money.py: format_cents(cents) renders cents as dollars with two decimals ("-$1.50" for negatives); parse_price(text) parses "$12.34", "3" or "0.5" into exact integer cents and raises ValueError on malformed input or more than two decimals.',
    ],
    acceptance: [
      ['format_cents(1234) is "$12.34"', 'parse_price("12.50") is 1250'],
      ['prices round-trip', 'its test passes'],
    ],
    files: [
      {
        path: 'inventory/money.py',
        headers: ['Money as integer cents.', 'Prices in and out.'],
        names: { match: ['match', 'm', 'found'], whole: ['whole', 'dollars', 'units'] },
        blocks: [
          { text: r`import re` },
          {
            helper: true,
            text: r`
def format_cents(cents):
  sign = '-' if cents < 0 else ''
  $whole$, part = divmod(abs(cents), 100)
  return f'{sign}${D}{$whole$}.{part:02d}'`,
          },
          {
            helper: true,
            text: r`
def parse_price(text):
  $match$ = re.fullmatch(r'\$?(\d+)(?:\.(\d{1,2}))?', text.strip())
  if $match$ is None:
    raise ValueError('not a price: ' + text)
  $whole$, part = $match$.groups()
  return int($whole$) * 100 + int((part or '0').ljust(2, '0'))`,
          },
        ],
      },
      {
        path: 'tests/test_money.py',
        blocks: [
          {
            text: pyTest(
              'from inventory.money import format_cents, parse_price',
              'Money',
              r`  def test_format_and_parse(self):
    self.assertEqual(format_cents(1234), '$12.34')
    self.assertEqual(parse_price('12.50'), 1250)`,
            ),
          },
        ],
      },
    ],
    dependsOn: [],
    check: 'python3 -m unittest tests/test_money.py',
    codeCheck: 'python3 -c "import inventory.money"',
    exportSlip: ['parse_price', 'parse_money'],
    bugs: [
      {
        kind: 'off-by-one',
        path: 'inventory/money.py',
        from: r`(?:\.(\d{1,2}))?`,
        to: r`(?:\.(\d{1,3}))?`,
      },
      {
        kind: 'edge-case',
        path: 'inventory/money.py',
        from: "return f'{sign}${$whole$}.{part:02d}'",
        to: "return f'{sign}${$whole$}.{part}'",
      },
    ],
    acceptanceTest: CRITERIA_TESTS.money,
    misconception: {
      what: 'prices parsed through floating point (int(float(text) * 100): "0.29" gives 28)',
      share: 0.5,
      edits: [
        {
          path: 'inventory/money.py',
          from: r`$whole$, part = $match$.groups()
  return int($whole$) * 100 + int((part or '0').ljust(2, '0'))`,
          to: r`return int(float(text.strip().lstrip('$')) * 100)`,
        },
      ],
    },
  },
  {
    titles: ['Write the item validation', 'Validate items', 'Item validation rules'],
    descriptions: [
      'Create inventory/validate.py with validate_item(item) → a list of problems with an Item from inventory/models.py, empty when it is valid: "sku is empty", "name is empty" (blank counts as empty), "quantity is negative", "price is negative".',
      'inventory/validate.py: validate_item(item) returns the list of what is wrong with an Item (blank sku, blank name, negative quantity, negative price_cents), each as a short message, or [] for a valid item.',
    ],
    acceptance: [
      ['a valid item has no problems', 'a negative price is reported'],
      ['problems are listed', 'its test passes'],
    ],
    files: [
      {
        path: 'inventory/validate.py',
        headers: ['Validation of stock items.', 'What can be wrong with an item.'],
        names: { problems: ['problems', 'errors', 'issues'] },
        blocks: [
          {
            text: r`
def validate_item(item):
  $problems$ = []
  if item.sku.strip() == '':
    $problems$.append('sku is empty')
  if item.name.strip() == '':
    $problems$.append('name is empty')
  if item.quantity < 0:
    $problems$.append('quantity is negative')
  if item.price_cents < 0:
    $problems$.append('price is negative')
  return $problems$`,
          },
        ],
      },
      {
        path: 'tests/test_validate.py',
        blocks: [
          {
            text: pyTest(
              'from inventory.models import Item\nfrom inventory.validate import validate_item',
              'Validate',
              r`  def test_problems(self):
    self.assertEqual(validate_item(Item(sku='A1', name='Pen', quantity=3, price_cents=120)), [])
    bad = Item(sku='A1', name='Pen', quantity=3, price_cents=-1)
    self.assertEqual(validate_item(bad), ['price is negative'])`,
            ),
          },
        ],
      },
    ],
    dependsOn: [0],
    check: 'python3 -m unittest tests/test_validate.py',
    codeCheck: 'python3 -c "import inventory.validate"',
    exportSlip: ['validate_item', 'check_item'],
    bugs: [
      {
        kind: 'off-by-one',
        path: 'inventory/validate.py',
        from: 'if item.quantity < 0:',
        to: 'if item.quantity < 1:',
      },
      {
        kind: 'edge-case',
        path: 'inventory/validate.py',
        from: "if item.sku.strip() == '':",
        to: "if item.sku == '':",
      },
    ],
  },
  {
    titles: ['Write the JSON store', 'Load and save items', 'Inventory file storage'],
    descriptions: [
      'Create inventory/store.py with load_items(path) → the Items in a JSON file (a list of item dicts, read with item_from_dict from inventory/models.py; a missing file is an empty inventory) and save_items(path, items), writing them sorted by sku with item_to_dict, indented by 2.',
      'inventory/store.py: load_items(path) reads a JSON list of item dicts into Items (no file: []), save_items(path, items) writes the items as JSON sorted by sku; both use item_from_dict/item_to_dict of inventory/models.py.',
    ],
    acceptance: [
      ['items saved are loaded back equal', 'a missing file loads as []'],
      ['the store round-trips', 'its test passes'],
    ],
    files: [
      {
        path: 'inventory/store.py',
        headers: ['The inventory file.', 'Items on disk, as JSON.'],
        names: { handle: ['f', 'handle', 'stream'], rows: ['data', 'rows', 'dicts'] },
        blocks: [
          { text: r`import json` },
          { text: r`from inventory.models import item_from_dict, item_to_dict` },
          {
            helper: true,
            text: r`
def load_items(path):
  try:
    with open(path, encoding='utf-8') as $handle$:
      $rows$ = json.load($handle$)
  except FileNotFoundError:
    return []
  return [item_from_dict(d) for d in $rows$]`,
          },
          {
            helper: true,
            text: r`
def save_items(path, items):
  $rows$ = [item_to_dict(i) for i in sorted(items, key=lambda i: i.sku)]
  with open(path, 'w', encoding='utf-8') as $handle$:
    json.dump($rows$, $handle$, indent=2)
    $handle$.write('\n')`,
          },
        ],
      },
      {
        path: 'tests/test_store.py',
        blocks: [
          {
            text: pyTest(
              'import os\nimport tempfile\nfrom inventory.models import Item\nfrom inventory.store import load_items, save_items',
              'Store',
              r`  def test_round_trip(self):
    with tempfile.TemporaryDirectory() as d:
      path = os.path.join(d, 'inv.json')
      items = [Item(sku='A1', name='Pen', quantity=3, price_cents=120)]
      save_items(path, items)
      self.assertEqual(load_items(path), items)`,
            ),
          },
        ],
      },
    ],
    dependsOn: [0],
    check: 'python3 -m unittest tests/test_store.py',
    codeCheck: 'python3 -c "import inventory.store"',
    exportSlip: ['load_items', 'read_items'],
    bugs: [
      {
        kind: 'off-by-one',
        path: 'inventory/store.py',
        from: 'for i in sorted(items, key=lambda i: i.sku)]',
        to: 'for i in items]',
      },
      {
        kind: 'edge-case',
        path: 'inventory/store.py',
        from: 'except FileNotFoundError:\n    return []',
        to: 'except PermissionError:\n    return []',
      },
    ],
  },
  {
    titles: ['Write the CSV export', 'Export items as CSV', 'CSV export module'],
    descriptions: [
      'Create inventory/csv_export.py with to_csv(items) → CSV text: a header row sku,name,quantity,price, then one row per item with its price formatted by format_cents from inventory/money.py; fields are quoted as the csv module does, lines end with \\n.',
      'inventory/csv_export.py: to_csv(items) returns the items as CSV (header sku,name,quantity,price; price via format_cents of inventory/money.py), written with the csv module so fields holding commas are quoted, one \\n per line.',
    ],
    acceptance: [
      ['to_csv writes the header and a row per item', 'prices are formatted'],
      ['the CSV is right', 'its test passes'],
    ],
    files: [
      {
        path: 'inventory/csv_export.py',
        headers: ['CSV export of the inventory.', 'Items as CSV text.'],
        names: { out: ['out', 'buffer', 'text'], writer: ['writer', 'w', 'rows'] },
        blocks: [
          { text: 'import csv\nimport io' },
          { text: r`from inventory.money import format_cents` },
          {
            text: r`
def to_csv(items):
  $out$ = io.StringIO()
  $writer$ = csv.writer($out$, lineterminator='\n')
  $writer$.writerow(['sku', 'name', 'quantity', 'price'])
  for item in items:
    $writer$.writerow([item.sku, item.name, item.quantity, format_cents(item.price_cents)])
  return $out$.getvalue()`,
          },
        ],
      },
      {
        path: 'tests/test_csv_export.py',
        blocks: [
          {
            text: pyTest(
              'from inventory.csv_export import to_csv\nfrom inventory.models import Item',
              'CsvExport',
              r`  def test_rows(self):
    text = to_csv([Item(sku='A1', name='Pen', quantity=3, price_cents=120)])
    self.assertEqual(text, 'sku,name,quantity,price\nA1,Pen,3,$1.20\n')`,
            ),
          },
        ],
      },
    ],
    dependsOn: [0, 1],
    check: 'python3 -m unittest tests/test_csv_export.py',
    codeCheck: 'python3 -c "import inventory.csv_export"',
    exportSlip: ['to_csv', 'to_csv_text'],
    bugs: [
      {
        kind: 'edge-case',
        path: 'inventory/csv_export.py',
        from: "['sku', 'name', 'quantity', 'price']",
        to: "['sku', 'name', 'qty', 'price']",
      },
    ],
    acceptanceTest: CRITERIA_TESTS.csvExport,
    misconception: {
      what: 'rows joined with commas by hand: a field holding a comma is not quoted',
      share: 0.5,
      edits: [
        {
          path: 'inventory/csv_export.py',
          from: r`$writer$.writerow([item.sku, item.name, item.quantity, format_cents(item.price_cents)])`,
          to: r`$out$.write(','.join([item.sku, item.name, str(item.quantity), format_cents(item.price_cents)]) + '\n')`,
        },
      ],
    },
  },
];
