import type { ProductIdea } from '../types.js';
import { INVENTORY_CLI } from './inventory-cli.js';
import { INVENTORY_CORE } from './inventory-core.js';
import { INVENTORY_REPORTS } from './inventory-reports.js';

const r = String.raw;

/**
 * A shop's stock in Python, in three levels: the root splits into four parts (the core, storage,
 * reports and the command line), each part into its leaves (eleven in all). Its item model's
 * plausible wrong answer imports fine and breaks every later leaf that reads a quantity.
 */
export const inventory: ProductIdea = {
  name: 'inventory',
  idea: "a Python library and command-line tool that tracks a small shop's stock: an item model, money and validation, a JSON file store and CSV export, stock reports, and an inventory command (Python 3 standard library only, a package named inventory, tests with unittest)",
  runtime: 'python',
  leaves: [...INVENTORY_CORE, ...INVENTORY_REPORTS, ...INVENTORY_CLI],
  groups: [
    {
      titles: ['Build the core', 'Core model, money and validation', 'The inventory core'],
      descriptions: [
        'The core of the inventory package: the Item model (inventory/models.py), money formatting and parsing (inventory/money.py) and item validation (inventory/validate.py), each with its unittest.',
        'inventory/models.py (the Item dataclass), inventory/money.py (prices as cents) and inventory/validate.py (what is wrong with an item), with their tests.',
      ],
      acceptance: ['the model imports', 'the money and validation tests pass'],
      leaves: [0, 1, 2],
      dependsOn: [],
      check: 'python3 -m unittest tests/test_money.py tests/test_validate.py',
    },
    {
      titles: ['Build the storage', 'File store and CSV export', 'Inventory storage'],
      descriptions: [
        'Storage: the JSON file store (inventory/store.py) and the CSV export (inventory/csv_export.py), with their unittests.',
        'inventory/store.py loads and saves the items as JSON; inventory/csv_export.py writes them as CSV; each with a test.',
      ],
      acceptance: ['the store and export tests pass'],
      leaves: [3, 4],
      dependsOn: [0],
      check: 'python3 -m unittest tests/test_store.py tests/test_csv_export.py',
    },
    {
      titles: ['Build the reports', 'Stock reports', 'Inventory reports'],
      descriptions: [
        'The reports: stock value and units (inventory/reports.py), low stock (inventory/low_stock.py) and value by category (inventory/by_category.py), with their unittests.',
        'inventory/reports.py, inventory/low_stock.py and inventory/by_category.py: what the stock is worth, what runs low, and the value per category; each with a test.',
      ],
      acceptance: ['the report tests pass'],
      leaves: [5, 6, 7],
      dependsOn: [0],
      check:
        'python3 -m unittest tests/test_reports.py tests/test_low_stock.py tests/test_by_category.py',
    },
    {
      titles: ['Build the command line', 'The inventory command', 'Command-line tool'],
      descriptions: [
        'The command line: argument parsing (inventory/cli_args.py), the list, add and report commands (inventory/commands.py) and python3 -m inventory (inventory/__main__.py), with their unittests.',
        'inventory/cli_args.py, inventory/commands.py and inventory/__main__.py: python3 -m inventory [--file F] list | add SKU NAME QTY PRICE | report [--threshold N]; each with a test.',
      ],
      acceptance: ['the command-line tests pass'],
      leaves: [8, 9, 10],
      dependsOn: [1, 2],
      check: 'python3 -m unittest tests/test_cli_args.py tests/test_commands.py tests/test_main.py',
    },
  ],
  hiddenTests: [
    {
      path: 'test_inventory_hidden.py',
      content: r`
import contextlib
import io
import os
import subprocess
import sys
import tempfile
import unittest

from inventory.by_category import value_by_category
from inventory.cli_args import parse_args
from inventory.csv_export import to_csv
from inventory.low_stock import low_stock
from inventory.models import Item, item_from_dict, item_to_dict
from inventory.money import format_cents, parse_price
from inventory.reports import stock_value, total_units
from inventory.store import load_items, save_items
from inventory.validate import validate_item
from inventory.__main__ import main


def item(sku, quantity, price=100, name='Thing', category='general'):
    return Item(sku=sku, name=name, quantity=quantity, price_cents=price, category=category)


class HiddenInventoryTest(unittest.TestCase):
    def test_model(self):
        data = {'sku': 'A1', 'name': 'Pen', 'quantity': 3, 'price_cents': 120}
        made = item_from_dict(data)
        self.assertEqual((made.quantity, made.category), (3, 'general'))
        self.assertEqual(item_to_dict(made), {**data, 'category': 'general'})

    def test_money(self):
        self.assertEqual(parse_price('0.29'), 29)
        self.assertEqual(parse_price('19.99'), 1999)
        self.assertEqual(parse_price('$3'), 300)
        self.assertEqual(parse_price('0.5'), 50)
        for bad in ['', 'abc', '1.234', '1.2.3']:
            with self.assertRaises(ValueError):
                parse_price(bad)
        self.assertEqual(format_cents(5), '$0.05')
        self.assertEqual(format_cents(-150), '-$1.50')

    def test_validate(self):
        self.assertEqual(validate_item(item('A1', 0)), [])
        self.assertEqual(validate_item(item('  ', 1)), ['sku is empty'])
        self.assertEqual(validate_item(item('A1', -1)), ['quantity is negative'])

    def test_store(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, 'inv.json')
            self.assertEqual(load_items(path), [])
            save_items(path, [item('B2', 1), item('A1', 2, category='office')])
            self.assertEqual([i.sku for i in load_items(path)], ['A1', 'B2'])
            self.assertEqual(load_items(path)[0].category, 'office')

    def test_csv(self):
        text = to_csv([item('A1', 2, 150, name='Pens, blue')])
        self.assertEqual(text, 'sku,name,quantity,price\nA1,"Pens, blue",2,$1.50\n')

    def test_reports(self):
        stock = [item('A1', 2, 150, category='office'), item('B2', 5, 10), item('C3', 6, 1, category='office')]
        self.assertEqual(stock_value(stock), 356)
        self.assertEqual(total_units(stock), 13)
        self.assertEqual([i.sku for i in low_stock(stock, 5)], ['A1', 'B2'])
        self.assertEqual([i.sku for i in low_stock([item('Z9', 1), item('A1', 1)])], ['A1', 'Z9'])
        self.assertEqual([i.sku for i in low_stock([item('A1', 5), item('B2', 6)])], ['A1'])
        by_category = value_by_category(stock)
        self.assertEqual(by_category, {'general': 50, 'office': 306})
        self.assertEqual(list(by_category), ['general', 'office'])

    def test_arguments(self):
        self.assertEqual(parse_args(['report']).threshold, 5)
        with self.assertRaises(SystemExit):
            parse_args([])

    def test_command(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, 'inv.json')

            def run(*args):
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    status = main(['--file', path, *args])
                return status, out.getvalue()

            self.assertEqual(run('add', 'A1', 'Pen', '3', '1.20')[0], 0)
            self.assertEqual(run('add', 'A1', 'Pen', '4', '1.20')[0], 0)
            self.assertEqual(run('list'), (0, 'A1  Pen  4  $1.20\n'))
            self.assertEqual(run('report', '--threshold', '4'), (0, 'value: $4.80\nlow: A1 (4)\n'))
            bad = subprocess.run([sys.executable, '-m', 'inventory', '--file', path, 'add', 'B2', 'Ink', '-1', '2.00'], capture_output=True, text=True)
            self.assertEqual(bad.returncode, 1)
            self.assertIn('error', bad.stdout)
            self.assertEqual(run('list')[1], 'A1  Pen  4  $1.20\n')
`,
    },
  ],
};
