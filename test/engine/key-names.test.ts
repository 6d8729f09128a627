import { describe, expect, it } from 'vitest';
import { KeyNames, describePlan } from '../../src/engine/keys.js';

describe('vote keys in words', () => {
  it('names a split by its subtasks, an acceptance test by its path and command, never as JSON', () => {
    const split = JSON.stringify({ subtasks: [{ title: 'Parse' }, { title: 'Print' }] });
    expect(describePlan(split)).toBe('2 subtasks: "Parse", "Print"');
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
