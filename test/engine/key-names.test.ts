import { describe, expect, it } from 'vitest';
import { splitKey } from '../../src/core/voting/equivalence.js';
import { KeyNames, describePlan } from '../../src/core/view/key-names.js';

describe('vote keys in words', () => {
  it('names a split by its subtasks, an acceptance test by its path and command, never as JSON', () => {
    const split = JSON.stringify({ subtasks: [{ title: 'Parse' }, { title: 'Print' }] });
    expect(describePlan(split)).toBe('2 subtasks: "Parse", "Print"');
    // A split key as splitKey makes it: no titles (prose), so each subtask by its files, or check.
    const structural = splitKey([
      { title: 'Parse', files: ['src/csv.mjs', 'test/csv.test.mjs'], dependsOn: [], check: 'x' },
      { title: 'Print', files: [], dependsOn: [0], check: 'node --test' },
    ]);
    expect(describePlan(structural)).toBe(
      '2 subtasks: src/csv.mjs + test/csv.test.mjs, checked by `node --test`',
    );
    const other = splitKey([
      { title: 'Parse', files: ['src/csv.mjs'], dependsOn: [], check: 'x' },
      { title: 'Print', files: [], dependsOn: [0], check: 'node --test' },
    ]);
    const plans = new KeyNames();
    plans.name(structural);
    expect(plans.name(other).description).toBe(
      "2 subtasks: src/csv.mjs, checked by `node --test` (differs from plan 1 in subtask 1's files)",
    );
    const test = JSON.stringify({
      command: 'node --test test/add.test.mjs',
      content: "import { test } from 'node:test';",
      path: 'test/add.test.mjs',
    });
    expect(describePlan(test)).toBe(
      'a test in test/add.test.mjs, run by `node --test test/add.test.mjs`',
    );
    const names = new KeyNames();
    expect(names.name(test)).toEqual({ name: 'plan 1', description: describePlan(test) });
    expect(names.name(test)).toEqual({ name: 'plan 1' });
  });
});
