import type { LeafSpec } from '../types.js';
import { CRITERIA_TESTS } from './criteria-tests.js';
import { pyTest } from './python-test.js';

const r = String.raw;

/** The inventory's command-line leaves (8–10): its arguments, its commands, `python3 -m inventory`. */
export const INVENTORY_CLI: readonly LeafSpec[] = [
  {
    titles: ['Write the argument parser', 'Parse the command line', 'Command-line arguments'],
    descriptions: [
      'Create inventory/cli_args.py with parse_args(argv) using argparse (prog "inventory"): an option --file (default inventory.json) and a required subcommand: list; add SKU NAME QUANTITY PRICE (quantity an int, price a string); report with --threshold (an int, default 5).',
      'inventory/cli_args.py: parse_args(argv) → argparse Namespace with file (--file, default "inventory.json") and command, one of list, add (positional sku, name, quantity:int, price) or report (--threshold int, default 5); a subcommand is required.',
    ],
    acceptance: [
      ['parse_args(["list"]).command is "list"', 'add takes four arguments'],
      ['arguments parse', 'its test passes'],
    ],
    files: [
      {
        path: 'inventory/cli_args.py',
        headers: ['Command-line arguments.', 'The inventory command line.'],
        names: { parser: ['parser', 'p', 'cli'], commands: ['commands', 'sub', 'subparsers'] },
        blocks: [
          { text: r`import argparse` },
          {
            text: r`
def parse_args(argv):
  $parser$ = argparse.ArgumentParser(prog='inventory')
  $parser$.add_argument('--file', default='inventory.json')
  $commands$ = $parser$.add_subparsers(dest='command', required=True)
  $commands$.add_parser('list')
  add = $commands$.add_parser('add')
  add.add_argument('sku')
  add.add_argument('name')
  add.add_argument('quantity', type=int)
  add.add_argument('price')
  report = $commands$.add_parser('report')
  report.add_argument('--threshold', type=int, default=5)
  return $parser$.parse_args(argv)`,
          },
        ],
      },
      {
        path: 'tests/test_cli_args.py',
        blocks: [
          {
            text: pyTest(
              'from inventory.cli_args import parse_args',
              'CliArgs',
              r`  def test_add(self):
    args = parse_args(['add', 'A1', 'Pen', '3', '1.20'])
    self.assertEqual((args.command, args.quantity, args.file), ('add', 3, 'inventory.json'))`,
            ),
          },
        ],
      },
    ],
    dependsOn: [],
    check: 'python3 -m unittest tests/test_cli_args.py',
    codeCheck: 'python3 -c "import inventory.cli_args"',
    exportSlip: ['parse_args', 'parse_arguments'],
    bugs: [
      {
        kind: 'off-by-one',
        path: 'inventory/cli_args.py',
        from: "report.add_argument('--threshold', type=int, default=5)",
        to: "report.add_argument('--threshold', type=int, default=4)",
      },
      {
        kind: 'edge-case',
        path: 'inventory/cli_args.py',
        from: "add_subparsers(dest='command', required=True)",
        to: "add_subparsers(dest='command')",
      },
    ],
  },
  {
    titles: ['Write the commands', 'Carry out list, add and report', 'Command implementations'],
    descriptions: [
      'Create inventory/commands.py with run_command(args, out) → exit status: it loads the items of args.file (inventory/store.py); "list" writes "SKU  NAME  QUANTITY  $PRICE" per item; "add" builds an Item (price by parse_price), refuses an invalid one (validate_item) by writing "error: <problems joined by ; >" and returning 1, else replaces any item with that sku, saves and writes "added SKU"; "report" writes "value: $X" (stock_value) and "low: SKU (QUANTITY)" per low_stock(items, args.threshold) item.',
      'inventory/commands.py: run_command(args, out) runs the parsed command on the file args.file and returns its exit status: list (one "sku  name  quantity  $price" line per item), add (validate with validate_item: problems → "error: …" and 1; otherwise upsert by sku, save, "added <sku>"), report ("value: $…" then a "low: <sku> (<quantity>)" line per low-stock item).',
    ],
    acceptance: [
      ['add then list shows the item', 'report prints the value'],
      ['the commands work', 'its test passes'],
    ],
    files: [
      {
        path: 'inventory/commands.py',
        headers: ['The inventory commands.', 'list, add and report.'],
        names: { items: ['items', 'stock', 'current'], problems: ['problems', 'errors', 'issues'] },
        blocks: [
          {
            text: r`
from inventory.low_stock import low_stock
from inventory.models import Item
from inventory.money import format_cents, parse_price
from inventory.reports import stock_value
from inventory.store import load_items, save_items
from inventory.validate import validate_item`,
          },
          {
            text: r`
def run_command(args, out):
  $items$ = load_items(args.file)
  if args.command == 'list':
    for item in $items$:
      out.write(f'{item.sku}  {item.name}  {item.quantity}  {format_cents(item.price_cents)}\n')
    return 0
  if args.command == 'add':
    return add_item(args, $items$, out)
  out.write(f'value: {format_cents(stock_value($items$))}\n')
  for item in low_stock($items$, args.threshold):
    out.write(f'low: {item.sku} ({item.quantity})\n')
  return 0`,
          },
          {
            text: r`
def add_item(args, $items$, out):
  item = Item(sku=args.sku, name=args.name, quantity=args.quantity, price_cents=parse_price(args.price))
  $problems$ = validate_item(item)
  if $problems$:
    out.write('error: ' + '; '.join($problems$) + '\n')
    return 1
  save_items(args.file, [i for i in $items$ if i.sku != item.sku] + [item])
  out.write(f'added {item.sku}\n')
  return 0`,
          },
        ],
      },
      {
        path: 'tests/test_commands.py',
        blocks: [
          {
            text: pyTest(
              'import argparse\nimport io\nimport os\nimport tempfile\nfrom inventory.commands import run_command',
              'Commands',
              r`  def test_add_then_list(self):
    with tempfile.TemporaryDirectory() as d:
      path = os.path.join(d, 'inv.json')
      out = io.StringIO()
      add = argparse.Namespace(file=path, command='add', sku='A1', name='Pen', quantity=3, price='1.20')
      self.assertEqual(run_command(add, out), 0)
      self.assertEqual(run_command(argparse.Namespace(file=path, command='list'), out), 0)
      self.assertIn('A1  Pen  3  $1.20', out.getvalue())`,
            ),
          },
        ],
      },
    ],
    dependsOn: [0, 1, 2, 3, 5, 6],
    check: 'python3 -m unittest tests/test_commands.py',
    codeCheck: 'python3 -c "import inventory.commands"',
    exportSlip: ['run_command', 'run_cmd'],
    bugs: [
      {
        kind: 'edge-case',
        path: 'inventory/commands.py',
        from: '[i for i in $items$ if i.sku != item.sku] + [item]',
        to: '$items$ + [item]',
      },
    ],
    acceptanceTest: CRITERIA_TESTS.commands,
    misconception: {
      what: 'add saves an item without validating it',
      share: 0.5,
      edits: [
        {
          path: 'inventory/commands.py',
          from: r`  $problems$ = validate_item(item)
  if $problems$:
    out.write('error: ' + '; '.join($problems$) + '\n')
    return 1
`,
          to: '',
        },
      ],
    },
  },
  {
    titles: ['Write the inventory command', 'The python -m inventory entry point', 'Main module'],
    descriptions: [
      'Create inventory/__main__.py with main(argv=None): parse the arguments (parse_args of inventory/cli_args.py, sys.argv[1:] by default), run them with run_command of inventory/commands.py writing to sys.stdout, and return its status; run as python3 -m inventory it exits with that status.',
      'inventory/__main__.py: main(argv=None) → exit status of run_command(parse_args(argv or sys.argv[1:]), sys.stdout); when run as a module (python3 -m inventory …) it calls sys.exit(main()).',
    ],
    acceptance: [
      ['python3 -m inventory add … then list prints the item', "its status is the command's"],
      ['the command runs', 'its test passes'],
    ],
    files: [
      {
        path: 'inventory/__main__.py',
        headers: ['python3 -m inventory', 'The inventory command.'],
        names: { args: ['args', 'parsed', 'options'] },
        blocks: [
          {
            text: r`
import sys

from inventory.cli_args import parse_args
from inventory.commands import run_command`,
          },
          {
            text: r`
def main(argv=None):
  $args$ = parse_args(sys.argv[1:] if argv is None else argv)
  return run_command($args$, sys.stdout)`,
          },
          {
            text: r`
if __name__ == '__main__':
  sys.exit(main())`,
          },
        ],
      },
      {
        path: 'tests/test_main.py',
        blocks: [
          {
            text: pyTest(
              'import os\nimport subprocess\nimport sys\nimport tempfile',
              'Main',
              r`  def test_add_and_list(self):
    with tempfile.TemporaryDirectory() as d:
      path = os.path.join(d, 'inv.json')
      run = lambda *a: subprocess.run([sys.executable, '-m', 'inventory', '--file', path, *a], capture_output=True, text=True)
      self.assertEqual(run('add', 'A1', 'Pen', '3', '1.20').returncode, 0)
      self.assertIn('A1  Pen', run('list').stdout)`,
            ),
          },
        ],
      },
    ],
    dependsOn: [8, 9],
    check: 'python3 -m unittest tests/test_main.py',
    codeCheck: 'python3 -c "import inventory.__main__"',
    exportSlip: ['run_command', 'run_commands'],
    bugs: [
      {
        kind: 'edge-case',
        path: 'inventory/__main__.py',
        from: '  sys.exit(main())',
        to: '  main()',
      },
    ],
  },
];
