import { describe, expect, it } from 'vitest';
import type { Draw } from '../../src/core/tree/schema.js';
import { failureDigest, testContest } from '../../src/core/voting/test-contest.js';

/** node --test's report of one failed assertion, as a candidate at `line` with `ms` would give it. */
const tap = (actual: number, line: number, ms: string) => `TAP version 13
# Subtest: add sums its arguments
not ok 1 - add sums its arguments
  ---
  duration_ms: ${ms}
  location: '/checkout/add.test.mjs:5:1'
  failureType: 'testCodeFailure'
  error: |-
    Expected values to be strictly equal:

    ${actual} !== 5

  code: 'ERR_ASSERTION'
  actual: ${actual}
  expected: 5
  operator: 'strictEqual'
  stack: |-
    TestContext.<anonymous> (file:///checkout/add.test.mjs:6:10)
    add (file:///checkout/add.mjs:${line}:3)
    Test.runInAsyncScope (node:async_hooks:206:9)
  ...
1..1
# tests 1
# pass 0
# fail 1
# duration_ms ${ms}
`;

const python = (actual: string, seconds: string) => `F
======================================================================
FAIL: test_add (test_add.TestAdd.test_add)
----------------------------------------------------------------------
Traceback (most recent call last):
  File "/checkout/test_add.py", line 7, in test_add
    self.assertEqual(add(2, 3), 5)
AssertionError: ${actual} != 5

----------------------------------------------------------------------
Ran 1 test in ${seconds}s

FAILED (failures=1)
`;

describe('how a candidate failed its acceptance test', () => {
  it('is the same for the same failure, whatever the timings and where in the code it happened', () => {
    expect(failureDigest(tap(-1, 2, '3.12'))).toBe(failureDigest(tap(-1, 4, '0.98')));
    expect(failureDigest(python('-1', '0.001'))).toBe(failureDigest(python('-1', '0.013')));
  });

  it('differs when the candidates did different things', () => {
    expect(failureDigest(tap(-1, 2, '3.12'))).not.toBe(failureDigest(tap(6, 2, '3.12')));
    expect(failureDigest(python('-1', '0.001'))).not.toBe(failureDigest(python('6', '0.001')));
  });
});

const valid = (slot: number, key: string): Draw => ({ slot, status: 'valid', key, flags: [] });
const failed = (slot: number, contests: string): Draw => ({
  slot,
  status: 'flagged',
  flags: [{ rule: 'acceptance-test-failed', message: '' }],
  contests,
});

describe('a test contested by the candidates it judges', () => {
  it('is contested by failures that agree, k more than the largest class that passes it', () => {
    const draws = [valid(0, 'x'), failed(1, 'd'), failed(2, 'd'), failed(3, 'd')];
    expect(testContest(draws, 2)).toEqual({ failing: 3, passing: 1, slots: [1, 2, 3] });
    // One short of the margin: the test stands.
    expect(testContest(draws.slice(0, 3), 2)).toBeUndefined();
    // A higher k asks for a wider margin.
    expect(testContest(draws, 3)).toBeUndefined();
  });

  it('is not contested by failures that differ, nor by flags of other kinds', () => {
    expect(testContest([failed(0, 'a'), failed(1, 'b'), failed(2, 'c')], 2)).toBeUndefined();
    const other: Draw = {
      slot: 3,
      status: 'flagged',
      flags: [{ rule: 'check-failed', message: '' }],
    };
    expect(testContest([other, { ...other, slot: 4 }, failed(5, 'a')], 2)).toBeUndefined();
  });
});
