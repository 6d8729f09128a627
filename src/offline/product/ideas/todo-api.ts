import type { ProductIdea } from '../types.js';
import { CRITERIA_TESTS } from './criteria-tests.js';

const r = String.raw;

/**
 * A small HTTP JSON API for to-do items on Node's standard library: a store, the validation of new
 * items, and a server.
 */
export const todoApi: ProductIdea = {
  name: 'todo-api',
  idea: "a small HTTP JSON API for a to-do list using only Node's standard library (node:http, ES modules)",
  leaves: [
    {
      titles: ['Write the to-do store', 'In-memory item store', 'To-do storage module'],
      descriptions: [
        'Create src/store.mjs exporting createStore(): an in-memory store with add(title) → {id, title, done: false} (ids 1, 2, 3, … never reused), list() → items in insertion order, get(id) → the item or undefined, and remove(id) → true if an item was removed, else false.',
        'src/store.mjs exports createStore(), which returns an object with add(title) (returns the new item {id, title, done: false}; ids count up from 1 and are never reused), list() (all items, oldest first), get(id) (undefined when absent) and remove(id) (a boolean: whether something was deleted).',
      ],
      acceptance: [
        ['the first item has id 1', 'remove returns false for an unknown id'],
        ['ids are never reused', 'its test passes'],
      ],
      files: [
        {
          path: 'src/store.mjs',
          headers: ['In-memory to-do store.', 'Storage for to-do items.'],
          names: {
            items: ['items', 'byId', 'todos'],
            nextId: ['nextId', 'counter', 'lastId'],
            item: ['item', 'todo', 'entry'],
          },
          blocks: [
            {
              text: r`
export function createStore() {
  const $items$ = new Map();
  let $nextId$ = 1;
  return {
    add(title) {
      const $item$ = { id: $nextId$++, title, done: false };
      $items$.set($item$.id, $item$);
      return $item$;
    },
    list() {
      return [...$items$.values()];
    },
    get(id) {
      return $items$.get(id);
    },
    remove(id) {
      return $items$.delete(id);
    },
  };
}`,
            },
          ],
        },
        {
          path: 'test/store.test.mjs',
          blocks: [
            {
              text: r`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createStore } from '../src/store.mjs';

test('adds and lists items', () => {
  const store = createStore();
  store.add('milk');
  assert.equal(store.list().length, 1);
  assert.equal(store.list()[0].title, 'milk');
});`,
            },
          ],
        },
      ],
      dependsOn: [],
      check: 'node --test test/store.test.mjs',
      exportSlip: ['createStore', 'makeStore'],
      bugs: [
        {
          kind: 'off-by-one',
          path: 'src/store.mjs',
          from: 'let $nextId$ = 1;',
          to: 'let $nextId$ = 0;',
        },
        {
          kind: 'edge-case',
          path: 'src/store.mjs',
          from: 'id: $nextId$++',
          to: 'id: $items$.size + 1',
        },
      ],
    },
    {
      titles: ['Write the input validation', 'Validate new to-do items', 'Request body validation'],
      descriptions: [
        'Create src/validate.mjs exporting validateTodo(payload) → null when payload is a valid new item, else a message (a string) saying what is wrong: payload must be a plain object (not null, not an array) whose title is a string that is not blank (only spaces) and at most 200 characters long.',
        'src/validate.mjs exports validateTodo(payload), which returns null for a valid new to-do and otherwise an error message string: the payload has to be a non-null, non-array object with a string title that is not empty or whitespace-only and has at most 200 characters.',
      ],
      acceptance: [
        ['a 200-character title is valid', 'a blank title gets a message'],
        ['arrays and null are refused', 'its test passes'],
      ],
      files: [
        {
          path: 'src/validate.mjs',
          headers: ['Validation of new to-do items.', 'Checks a request body.'],
          names: {
            payload: ['payload', 'body', 'input'],
            max: ['MAX_TITLE', 'TITLE_LIMIT', 'MAX_TITLE_LENGTH'],
          },
          blocks: [
            {
              text: r`
//~ Null when payload is a valid new to-do; else what is wrong with it.
export function validateTodo($payload$) {
  if (typeof $payload$ !== 'object' || $payload$ === null || Array.isArray($payload$))
    return 'the body must be a JSON object';
  if (typeof $payload$.title !== 'string') return 'title must be a string';
  if ($payload$.title.trim() === '') return 'title must not be blank';
  if ($payload$.title.length > $max$) return 'title is longer than ' + $max$ + ' characters';
  return null;
}`,
            },
            { helper: true, text: r`const $max$ = 200;` },
          ],
        },
        {
          path: 'test/validate.test.mjs',
          blocks: [
            {
              text: r`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateTodo } from '../src/validate.mjs';

test('accepts a title, refuses none', () => {
  assert.equal(validateTodo({ title: 'milk' }), null);
  assert.equal(typeof validateTodo({}), 'string');
});`,
            },
          ],
        },
      ],
      dependsOn: [],
      check: 'node --test test/validate.test.mjs',
      exportSlip: ['validateTodo', 'validateItem'],
      bugs: [
        {
          kind: 'off-by-one',
          path: 'src/validate.mjs',
          from: 'if ($payload$.title.length > $max$)',
          to: 'if ($payload$.title.length >= $max$)',
        },
        {
          kind: 'edge-case',
          path: 'src/validate.mjs',
          from: "  if ($payload$.title.trim() === '') return 'title must not be blank';\n",
          to: '',
        },
      ],
    },
    {
      titles: ['Write the HTTP server', 'Expose the store over HTTP', 'JSON routes for to-dos'],
      descriptions: [
        'Create src/server.mjs exporting createApp(store): a node:http Server (not listening) with JSON routes: GET /todos → 200 and the list; POST /todos with {"title"} → 201 and the new item, 400 with {"error"} on invalid JSON or a body validateTodo from src/validate.mjs refuses (its message as the error); GET /todos/:id → 200 and the item or 404; DELETE /todos/:id → 204 or 404; anything else → 404 {"error"}.',
        "src/server.mjs exports createApp(store) returning an http.Server (the caller listens) that serves JSON: GET /todos lists items (200); POST /todos takes {title} and answers 201 with the created item, or 400 {error} when the body is not JSON or src/validate.mjs's validateTodo returns a message for it; GET /todos/<id> answers 200 with the item or 404; DELETE /todos/<id> answers 204 when removed, else 404; other routes are 404 {error}. It uses the store from src/store.mjs's createStore().",
      ],
      acceptance: [
        ['POST then GET returns the item', 'bad JSON gets 400'],
        ['unknown ids get 404', 'its test passes'],
      ],
      files: [
        {
          path: 'src/server.mjs',
          headers: ['HTTP JSON API for to-dos.', 'The to-do API server.'],
          names: {
            body: ['body', 'raw', 'data'],
            match: ['match', 'found', 'm'],
            payload: ['payload', 'input', 'parsed'],
          },
          blocks: [
            {
              text: r`
import { createServer } from 'node:http';
import { validateTodo } from './validate.mjs';`,
            },
            {
              text: r`
export function createApp(store) {
  return createServer((req, res) => {
    handle(store, req, res).catch(() => send(res, 500, { error: 'internal error' }));
  });
}`,
            },
            {
              helper: true,
              text: r`
async function handle(store, req, res) {
  const url = new URL(req.url, 'http://localhost');
  const $match$ = /^\/todos\/(\d+)$/.exec(url.pathname);
  if (url.pathname === '/todos' && req.method === 'GET') return send(res, 200, store.list());
  if (url.pathname === '/todos' && req.method === 'POST') {
    let $payload$;
    try {
      $payload$ = JSON.parse(await readBody(req));
    } catch {
      return send(res, 400, { error: 'invalid JSON' });
    }
    const problem = validateTodo($payload$);
    if (problem !== null) return send(res, 400, { error: problem });
    return send(res, 201, store.add($payload$.title));
  }
  if ($match$ !== null && req.method === 'GET') {
    const item = store.get(Number($match$[1]));
    return item === undefined ? send(res, 404, { error: 'not found' }) : send(res, 200, item);
  }
  if ($match$ !== null && req.method === 'DELETE') {
    if (!store.remove(Number($match$[1]))) return send(res, 404, { error: 'not found' });
    res.writeHead(204);
    return res.end();
  }
  return send(res, 404, { error: 'not found' });
}`,
            },
            {
              helper: true,
              text: r`
function readBody(req) {
  return new Promise((resolve, reject) => {
    let $body$ = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => ($body$ += chunk));
    req.on('end', () => resolve($body$));
    req.on('error', reject);
  });
}`,
            },
            {
              helper: true,
              text: r`
function send(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}`,
            },
          ],
        },
        {
          path: 'test/server.test.mjs',
          blocks: [
            {
              text: r`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createApp } from '../src/server.mjs';
import { createStore } from '../src/store.mjs';

test('lists to-dos', async () => {
  const server = createApp(createStore());
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    // A deadline: a server that never answers fails the test instead of hanging it.
    const res = await fetch('http://127.0.0.1:' + server.address().port + '/todos', {
      signal: AbortSignal.timeout(5000),
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), []);
  } finally {
    server.close();
  }
});`,
            },
          ],
        },
      ],
      dependsOn: [0, 1],
      check: 'node --test test/server.test.mjs',
      exportSlip: ['createApp', 'createServerApp'],
      bugs: [
        {
          kind: 'off-by-one',
          path: 'src/server.mjs',
          from: 'store.get(Number($match$[1]))',
          to: 'store.get(Number($match$[1]) - 1)',
        },
        {
          kind: 'edge-case',
          path: 'src/server.mjs',
          from: "if (!store.remove(Number($match$[1]))) return send(res, 404, { error: 'not found' });",
          to: 'store.remove(Number($match$[1]));',
        },
      ],
      acceptanceTest: CRITERIA_TESTS.server,
      misconception: {
        what: 'DELETE of an unknown id answers 204 instead of 404',
        share: 0.5,
        edits: [
          {
            path: 'src/server.mjs',
            from: "if (!store.remove(Number($match$[1]))) return send(res, 404, { error: 'not found' });",
            to: 'store.remove(Number($match$[1]));',
          },
        ],
      },
    },
  ],
  hiddenTests: [
    {
      path: 'todo-api.test.mjs',
      content: r`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createStore } from '../src/store.mjs';
import { createApp } from '../src/server.mjs';
import { validateTodo } from '../src/validate.mjs';

test('validateTodo: an object with a non-blank title of at most 200 characters', () => {
  assert.equal(validateTodo({ title: 'milk' }), null);
  assert.equal(validateTodo({ title: 'x'.repeat(200) }), null);
  for (const bad of [null, [], 'milk', {}, { title: 3 }, { title: '' }, { title: '   ' }, { title: 'x'.repeat(201) }])
    assert.equal(typeof validateTodo(bad), 'string', JSON.stringify(bad));
});

test('store: ids from 1, never reused; remove says whether it removed', () => {
  const store = createStore();
  assert.deepEqual(store.add('a'), { id: 1, title: 'a', done: false });
  store.add('b');
  assert.equal(store.remove(1), true);
  assert.equal(store.remove(1), false);
  assert.equal(store.add('c').id, 3);
  assert.deepEqual(store.list().map((t) => t.title), ['b', 'c']);
  assert.equal(store.get(99), undefined);
});

test('server: the JSON routes', async () => {
  const server = createApp(createStore());
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = 'http://127.0.0.1:' + server.address().port;
  // Every request with a deadline: a server that never answers fails the test, not hangs it.
  const call = (path, init = {}) => fetch(base + path, { ...init, signal: AbortSignal.timeout(5000) });
  const post = (body) => call('/todos', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
  try {
    const created = await post(JSON.stringify({ title: 'milk' }));
    assert.equal(created.status, 201);
    assert.deepEqual(await created.json(), { id: 1, title: 'milk', done: false });
    assert.equal((await post('{not json')).status, 400);
    assert.equal((await post(JSON.stringify({ title: '' }))).status, 400);
    const blank = await post(JSON.stringify({ title: '  ' }));
    assert.equal(blank.status, 400);
    assert.equal(typeof (await blank.json()).error, 'string');
    assert.equal((await post('[]')).status, 400);
    const one = await call('/todos/1');
    assert.equal(one.status, 200);
    assert.equal((await one.json()).title, 'milk');
    assert.equal((await call('/todos/7')).status, 404);
    assert.equal((await call('/todos/1', { method: 'DELETE' })).status, 204);
    assert.equal((await call('/todos/1', { method: 'DELETE' })).status, 404);
    const missing = await call('/nowhere');
    assert.equal(missing.status, 404);
    assert.equal(typeof (await missing.json()).error, 'string');
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
`,
    },
  ],
};
