import type { LeafSpec } from '../types.js';
import { CRITERIA_TESTS } from './criteria-tests.js';
import { pyTest } from './python-test.js';

const r = String.raw;

const ITEMS = `from inventory.models import Item`;

/** The inventory's report leaves (5–7): stock value, low stock, value by category. */
export const INVENTORY_REPORTS: readonly LeafSpec[] = [
  {
    titles: ['Write the stock value report', 'Stock value and units', 'Inventory totals'],
    descriptions: [
      'Create inventory/reports.py with stock_value(items) → the total value in cents (the sum of quantity × price_cents) and total_units(items) → the sum of the quantities.',
      'inventory/reports.py: stock_value(items) sums quantity * price_cents over the items (cents); total_units(items) sums their quantities.',
    ],
    acceptance: [
      ['stock_value sums quantity × price', 'total_units sums quantities'],
      ['the totals are right', 'its test passes'],
    ],
    files: [
      {
        path: 'inventory/reports.py',
        headers: ['Inventory totals.', 'What the stock is worth.'],
        names: { item: ['item', 'i', 'it'] },
        blocks: [
          {
            helper: true,
            text: r`
def stock_value(items):
  return sum($item$.quantity * $item$.price_cents for $item$ in items)`,
          },
          {
            helper: true,
            text: r`
def total_units(items):
  return sum($item$.quantity for $item$ in items)`,
          },
        ],
      },
      {
        path: 'tests/test_reports.py',
        blocks: [
          {
            text: pyTest(
              `${ITEMS}\nfrom inventory.reports import stock_value, total_units`,
              'Reports',
              r`  def test_value(self):
    items = [Item(sku='A1', name='Pen', quantity=2, price_cents=150), Item(sku='B2', name='Ink', quantity=1, price_cents=99)]
    self.assertEqual(stock_value(items), 399)
    self.assertEqual(total_units([]), 0)`,
            ),
          },
        ],
      },
    ],
    dependsOn: [0],
    check: 'python3 -m unittest tests/test_reports.py',
    codeCheck: 'python3 -c "import inventory.reports"',
    exportSlip: ['stock_value', 'inventory_value'],
    bugs: [
      {
        kind: 'off-by-one',
        path: 'inventory/reports.py',
        from: 'return sum($item$.quantity for $item$ in items)',
        to: 'return sum($item$.quantity for $item$ in items[1:])',
      },
      {
        kind: 'edge-case',
        path: 'inventory/reports.py',
        from: 'return sum($item$.quantity for $item$ in items)',
        to: 'return len(items)',
      },
    ],
  },
  {
    titles: ['Write the low-stock report', 'Find items running low', 'Low stock listing'],
    descriptions: [
      'Create inventory/low_stock.py with low_stock(items, threshold=5) → the items whose quantity is at most threshold (quantity <= threshold), sorted by quantity, then by sku.',
      'inventory/low_stock.py: low_stock(items, threshold=5) returns the items with quantity less than or equal to the threshold, fewest first (ties by sku).',
    ],
    acceptance: [
      ['low_stock lists items at or below the threshold', 'sorted by quantity'],
      ['low items are found', 'its test passes'],
    ],
    files: [
      {
        path: 'inventory/low_stock.py',
        headers: ['Items running low.', 'The low-stock report.'],
        names: { low: ['low', 'found', 'short'] },
        blocks: [
          {
            text: r`
def low_stock(items, threshold=5):
  $low$ = [item for item in items if item.quantity <= threshold]
  return sorted($low$, key=lambda item: (item.quantity, item.sku))`,
          },
        ],
      },
      {
        path: 'tests/test_low_stock.py',
        blocks: [
          {
            text: pyTest(
              `${ITEMS}\nfrom inventory.low_stock import low_stock`,
              'LowStock',
              r`  def test_low(self):
    pen = Item(sku='A1', name='Pen', quantity=1, price_cents=150)
    ink = Item(sku='B2', name='Ink', quantity=10, price_cents=99)
    self.assertEqual(low_stock([ink, pen], 5), [pen])`,
            ),
          },
        ],
      },
    ],
    dependsOn: [0],
    check: 'python3 -m unittest tests/test_low_stock.py',
    codeCheck: 'python3 -c "import inventory.low_stock"',
    exportSlip: ['low_stock', 'lowstock'],
    bugs: [
      {
        kind: 'off-by-one',
        path: 'inventory/low_stock.py',
        from: 'def low_stock(items, threshold=5):',
        to: 'def low_stock(items, threshold=4):',
      },
      {
        kind: 'edge-case',
        path: 'inventory/low_stock.py',
        from: 'key=lambda item: (item.quantity, item.sku)',
        to: 'key=lambda item: item.quantity',
      },
    ],
    acceptanceTest: CRITERIA_TESTS.lowStock,
    misconception: {
      what: 'items exactly at the threshold left out (quantity < threshold)',
      share: 0.5,
      edits: [
        {
          path: 'inventory/low_stock.py',
          from: 'if item.quantity <= threshold]',
          to: 'if item.quantity < threshold]',
        },
      ],
    },
  },
  {
    titles: ['Write the value-by-category report', 'Value per category', 'Category totals'],
    descriptions: [
      'Create inventory/by_category.py with value_by_category(items) → a dict from each category to the value of its items in cents (quantity × price_cents), its keys in alphabetical order.',
      'inventory/by_category.py: value_by_category(items) returns {category: total value in cents} for the categories present, keys sorted alphabetically.',
    ],
    acceptance: [
      ['value_by_category totals each category', 'keys are sorted'],
      ['categories are totalled', 'its test passes'],
    ],
    files: [
      {
        path: 'inventory/by_category.py',
        headers: ['Value per category.', 'Category totals.'],
        names: { totals: ['totals', 'values', 'by_cat'] },
        blocks: [
          {
            text: r`
def value_by_category(items):
  $totals$ = {}
  for item in items:
    $totals$[item.category] = $totals$.get(item.category, 0) + item.quantity * item.price_cents
  return dict(sorted($totals$.items()))`,
          },
        ],
      },
      {
        path: 'tests/test_by_category.py',
        blocks: [
          {
            text: pyTest(
              `${ITEMS}\nfrom inventory.by_category import value_by_category`,
              'ByCategory',
              r`  def test_totals(self):
    items = [Item(sku='A1', name='Pen', quantity=2, price_cents=150, category='office')]
    self.assertEqual(value_by_category(items), {'office': 300})`,
            ),
          },
        ],
      },
    ],
    dependsOn: [0],
    check: 'python3 -m unittest tests/test_by_category.py',
    codeCheck: 'python3 -c "import inventory.by_category"',
    exportSlip: ['value_by_category', 'category_values'],
    bugs: [
      {
        kind: 'off-by-one',
        path: 'inventory/by_category.py',
        from: '$totals$.get(item.category, 0)',
        to: '$totals$.get(item.category, 1)',
      },
      {
        kind: 'edge-case',
        path: 'inventory/by_category.py',
        from: 'return dict(sorted($totals$.items()))',
        to: 'return dict(sorted($totals$.items(), reverse=True))',
      },
    ],
  },
];
