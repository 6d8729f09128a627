import type { ProductIdea } from '../types.js';
import { CRITERIA_TESTS } from './criteria-tests.js';

const r = String.raw;

/**
 * An arithmetic expression evaluator library: a tokenizer, a recursive-descent evaluator, and a
 * command that evaluates its arguments.
 */
export const exprEval: ProductIdea = {
  name: 'expr-eval',
  idea: 'a small library that evaluates arithmetic expressions like "2 * (3 + 4) - -1", with a calc command that evaluates its arguments or stdin (Node.js, ES modules, no dependencies)',
  leaves: [
    {
      titles: ['Write the tokenizer', 'Tokenize expressions', 'Expression lexer'],
      descriptions: [
        'Create src/tokenize.mjs exporting tokenize(source): an array of tokens, {type: "num", value: number} for numbers (digits with an optional decimal part, e.g. 3.25) and {type: "op", value} for each of + - * / ( ); whitespace is skipped; any other character throws a SyntaxError naming it.',
        'src/tokenize.mjs exports tokenize(source) which turns an expression string into tokens: numbers (integers or decimals) as {type: "num", value} with a numeric value, and the characters + - * / ( ) as {type: "op", value}. Spaces are ignored and an unexpected character raises SyntaxError.',
      ],
      acceptance: [
        ['tokenize("1+2") gives num, op, num', 'decimals are one number'],
        ['bad characters throw SyntaxError', 'its test passes'],
      ],
      files: [
        {
          path: 'src/tokenize.mjs',
          headers: ['Lexer for arithmetic expressions.', 'Tokenizer.'],
          names: { tokens: ['tokens', 'out', 'result'], start: ['start', 'from', 'begin'] },
          blocks: [
            {
              text: r`
export function tokenize(source) {
  const $tokens$ = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i];
    if (ch === ' ' || ch === '\t') {
      i++;
    } else if (isDigit(ch)) {
      const $start$ = i;
      while (i < source.length && (isDigit(source[i]) || source[i] === '.')) i++;
      $tokens$.push({ type: 'num', value: Number(source.slice($start$, i)) });
    } else if ('+-*/()'.includes(ch)) {
      $tokens$.push({ type: 'op', value: ch });
      i++;
    } else {
      throw new SyntaxError('Unexpected character ' + JSON.stringify(ch) + ' at ' + i);
    }
  }
  return $tokens$;
}`,
            },
            {
              helper: true,
              text: r`
//~ Whether ch is a decimal digit.
function isDigit(ch) {
  return ch >= '0' && ch <= '9';
}`,
            },
          ],
        },
        {
          path: 'test/tokenize.test.mjs',
          blocks: [
            {
              text: r`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokenize } from '../src/tokenize.mjs';

test('tokenizes numbers and operators', () => {
  assert.deepEqual(tokenize('1 + 2'), [
    { type: 'num', value: 1 },
    { type: 'op', value: '+' },
    { type: 'num', value: 2 },
  ]);
});`,
            },
          ],
        },
      ],
      dependsOn: [],
      check: 'node --test test/tokenize.test.mjs',
      exportSlip: ['tokenize', 'tokenise'],
      bugs: [
        {
          kind: 'off-by-one',
          path: 'src/tokenize.mjs',
          from: 'source.slice($start$, i)',
          to: 'source.slice($start$, i - 1)',
        },
        { kind: 'edge-case', path: 'src/tokenize.mjs', from: " || source[i] === '.'", to: '' },
      ],
    },
    {
      titles: ['Write the evaluator', 'Evaluate token streams', 'Recursive-descent evaluator'],
      descriptions: [
        'Create src/evaluate.mjs exporting evaluate(source): tokenize it with tokenize from src/tokenize.mjs and compute the value with the usual precedence (* and / before + and -, left to right), parentheses and unary minus. Division by zero throws a RangeError; a malformed expression (a missing operand or parenthesis, tokens left over) throws a SyntaxError.',
        'src/evaluate.mjs exports evaluate(source), a recursive-descent evaluator over the tokens of src/tokenize.mjs: left-associative + - * / with standard precedence, parenthesised groups and unary minus; x / 0 raises RangeError, and malformed input (unbalanced parentheses, dangling operators, trailing tokens) raises SyntaxError.',
      ],
      acceptance: [
        ['evaluate("2*(3+4)") is 14', 'evaluate("1/0") throws RangeError'],
        ['precedence and unary minus work', 'its test passes'],
      ],
      files: [
        {
          path: 'src/evaluate.mjs',
          headers: ['Evaluates arithmetic expressions.', 'Recursive-descent evaluation.'],
          names: {
            pos: ['pos', 'at', 'index'],
            left: ['left', 'acc', 'value'],
            right: ['right', 'rhs', 'next'],
          },
          blocks: [
            { text: r`import { tokenize } from './tokenize.mjs';` },
            {
              text: r`
export function evaluate(source) {
  const tokens = tokenize(source);
  const state = { tokens, $pos$: 0 };
  const result = parseSum(state);
  if (state.$pos$ < tokens.length) throw new SyntaxError('Unexpected token at ' + state.$pos$);
  return result;
}`,
            },
            {
              helper: true,
              text: r`
function parseSum(state) {
  let $left$ = parseProduct(state);
  while (isOp(state, '+') || isOp(state, '-')) {
    const op = state.tokens[state.$pos$++].value;
    const $right$ = parseProduct(state);
    $left$ = op === '+' ? $left$ + $right$ : $left$ - $right$;
  }
  return $left$;
}`,
            },
            {
              helper: true,
              text: r`
function parseProduct(state) {
  let $left$ = parseUnary(state);
  while (isOp(state, '*') || isOp(state, '/')) {
    const op = state.tokens[state.$pos$++].value;
    const $right$ = parseUnary(state);
    if (op === '/' && $right$ === 0) throw new RangeError('Division by zero');
    $left$ = op === '*' ? $left$ * $right$ : $left$ / $right$;
  }
  return $left$;
}`,
            },
            {
              helper: true,
              text: r`
function parseUnary(state) {
  if (isOp(state, '-')) {
    state.$pos$++;
    return -parseUnary(state);
  }
  return parseAtom(state);
}`,
            },
            {
              helper: true,
              text: r`
function parseAtom(state) {
  const token = state.tokens[state.$pos$];
  if (token === undefined) throw new SyntaxError('Unexpected end of expression');
  if (token.type === 'num') {
    state.$pos$++;
    return token.value;
  }
  if (token.value === '(') {
    state.$pos$++;
    const inner = parseSum(state);
    if (!isOp(state, ')')) throw new SyntaxError('Missing )');
    state.$pos$++;
    return inner;
  }
  throw new SyntaxError('Unexpected ' + token.value);
}`,
            },
            {
              helper: true,
              text: r`
function isOp(state, value) {
  const token = state.tokens[state.$pos$];
  return token !== undefined && token.type === 'op' && token.value === value;
}`,
            },
          ],
        },
        {
          path: 'test/evaluate.test.mjs',
          blocks: [
            {
              text: r`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluate } from '../src/evaluate.mjs';

test('evaluates with precedence', () => {
  assert.equal(evaluate('2 * (3 + 4)'), 14);
  assert.equal(evaluate('1 + 2 * 3'), 7);
});`,
            },
          ],
        },
      ],
      dependsOn: [0],
      check: 'node --test test/evaluate.test.mjs',
      exportSlip: ['evaluate', 'evaluateExpression'],
      bugs: [
        {
          kind: 'off-by-one',
          path: 'src/evaluate.mjs',
          from: 'if (state.$pos$ < tokens.length)',
          to: 'if (state.$pos$ < tokens.length - 1)',
        },
        {
          kind: 'edge-case',
          path: 'src/evaluate.mjs',
          from: "if (op === '/' && $right$ === 0) throw new RangeError('Division by zero');\n",
          to: '',
        },
      ],
      acceptanceTest: CRITERIA_TESTS.evaluate,
      misconception: {
        what: 'right-associative + and - (10 - 4 - 3 evaluates as 10 - (4 - 3))',
        share: 0.5,
        edits: [
          {
            path: 'src/evaluate.mjs',
            from: r`const $right$ = parseProduct(state);
    $left$ = op === '+' ? $left$ + $right$ : $left$ - $right$;`,
            to: r`const $right$ = parseSum(state);
    return op === '+' ? $left$ + $right$ : $left$ - $right$;`,
          },
        ],
      },
    },
    {
      titles: ['Write the calc command', 'Command-line calculator', 'CLI evaluating expressions'],
      descriptions: [
        'Create bin/calc.mjs: evaluate the expression given by the arguments (joined with spaces), or read from stdin when there are none (surrounding whitespace trimmed), with evaluate from src/evaluate.mjs, and print the value on a line of its own. An error (a malformed expression, division by zero) prints "calc: <message>" on stderr and exits 1.',
        'bin/calc.mjs is a command-line calculator: it joins its arguments with spaces into one expression, or takes stdin (trimmed) when it has no arguments, evaluates it with src/evaluate.mjs and writes the result followed by a newline; on any error it writes "calc: " and the error message to stderr and exits with status 1.',
      ],
      acceptance: [
        ['calc 1 + 2 prints 3', 'stdin works'],
        ['errors exit 1 with calc: on stderr', 'its test passes'],
      ],
      files: [
        {
          path: 'bin/calc.mjs',
          headers: ['calc: evaluates an arithmetic expression.', 'Command-line calculator.'],
          names: {
            result: ['result', 'value', 'answer'],
            source: ['source', 'expression', 'text'],
          },
          blocks: [
            {
              text: r`
import { readFileSync } from 'node:fs';
import { evaluate } from '../src/evaluate.mjs';`,
            },
            {
              helper: true,
              text: r`
//~ The expression: the arguments, else stdin.
function readExpression(argv) {
  const $source$ = argv.length > 0 ? argv.join(' ') : readFileSync(0, 'utf8');
  return $source$.trim();
}`,
            },
            {
              helper: true,
              text: r`
function main(argv) {
  let $result$;
  try {
    $result$ = evaluate(readExpression(argv));
  } catch (error) {
    process.stderr.write('calc: ' + error.message + '\n');
    process.exitCode = 1;
    return;
  }
  process.stdout.write(String($result$) + '\n');
}`,
            },
            { text: r`main(process.argv.slice(2));` },
          ],
        },
        {
          path: 'test/calc-cli.test.mjs',
          blocks: [
            {
              text: r`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

test('evaluates stdin', () => {
  const out = execFileSync(process.execPath, ['bin/calc.mjs'], { input: '1 + 2 * 3\n', encoding: 'utf8' });
  assert.equal(out, '7\n');
});`,
            },
          ],
        },
      ],
      dependsOn: [1],
      check: 'node --test test/calc-cli.test.mjs',
      codeCheck: 'node bin/calc.mjs 2 + 2',
      exportSlip: ['evaluate', 'evaluateExpression'],
      bugs: [
        {
          kind: 'off-by-one',
          path: 'bin/calc.mjs',
          from: 'main(process.argv.slice(2));',
          to: 'main(process.argv.slice(3));',
        },
        { kind: 'edge-case', path: 'bin/calc.mjs', from: 'process.exitCode = 1;', to: '' },
      ],
    },
  ],
  hiddenTests: [
    {
      path: 'expr-eval.test.mjs',
      content: r`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokenize } from '../src/tokenize.mjs';
import { evaluate } from '../src/evaluate.mjs';
import { execFileSync, spawnSync } from 'node:child_process';

test('tokenize: decimals, whitespace, bad characters', () => {
  assert.deepEqual(tokenize('3.25*(10)'), [
    { type: 'num', value: 3.25 },
    { type: 'op', value: '*' },
    { type: 'op', value: '(' },
    { type: 'num', value: 10 },
    { type: 'op', value: ')' },
  ]);
  assert.deepEqual(tokenize('  42 '), [{ type: 'num', value: 42 }]);
  assert.throws(() => tokenize('2 $ 3'), SyntaxError);
});

test('evaluate: precedence, associativity, parentheses, unary minus', () => {
  assert.equal(evaluate('2 * (3 + 4) - -1'), 15);
  assert.equal(evaluate('10 - 4 - 3'), 3);
  assert.equal(evaluate('8 / 4 / 2'), 1);
  assert.equal(evaluate('-(2.5 + 0.5) * 2'), -6);
  assert.equal(evaluate('7'), 7);
});

test('evaluate: errors', () => {
  assert.throws(() => evaluate('1 / 0'), RangeError);
  assert.throws(() => evaluate('(1 + 2'), SyntaxError);
  assert.throws(() => evaluate('1 +'), SyntaxError);
  assert.throws(() => evaluate('1 2'), SyntaxError);
});

test('calc: arguments, stdin and errors', () => {
  const calc = (args, input) => spawnSync(process.execPath, ['bin/calc.mjs', ...args], { input, encoding: 'utf8' });
  assert.equal(execFileSync(process.execPath, ['bin/calc.mjs', '2', '*', '(3', '+', '4)'], { encoding: 'utf8' }), '14\n');
  assert.equal(calc([], '  10 / 4\n').stdout, '2.5\n');
  const zero = calc(['1 / 0']);
  assert.equal(zero.status, 1);
  assert.match(zero.stderr, /^calc: /);
  assert.equal(calc(['(1']).status, 1);
});
`,
    },
  ],
};
