import { describe, expect, it } from 'vitest';
import type { Draw } from '../../src/core/tree/schema.js';
import { DOUBT_REASON, raisedBecause } from '../../src/core/voting/adaptive-k.js';
import { failureDigest, testContest, testDoubted } from '../../src/core/voting/test-contest.js';

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

const valid = (slot: number, text: string, key = text): Draw => ({
  slot,
  status: 'valid',
  key,
  alias: text,
  flags: [],
});
const failed = (slot: number, failure: string, text: string): Draw => ({
  slot,
  status: 'flagged',
  flags: [{ rule: 'acceptance-test-failed', message: '' }],
  contests: { failure, text },
});

describe('a test contested by the candidates it judges', () => {
  it('is contested by failures that agree in k more texts than the largest class that passes it', () => {
    const draws = [valid(0, 'x'), failed(1, 'd', 'a'), failed(2, 'd', 'b'), failed(3, 'd', 'c')];
    expect(testContest(draws, 2)).toEqual({ failing: 3, passing: 1, slots: [1, 2, 3] });
    // One text short of the margin: the test stands.
    expect(testContest(draws.slice(0, 3), 2)).toBeUndefined();
    // A higher k asks for a wider margin.
    expect(testContest(draws, 3)).toBeUndefined();
  });

  it('counts texts, not samples: one wrong answer repeated word for word contests nothing', () => {
    const draws = [
      failed(0, 'd', 'a'),
      failed(1, 'd', 'a'),
      failed(2, 'd', 'a'),
      failed(3, 'd', 'a'),
    ];
    expect(testContest(draws, 2)).toBeUndefined();
    // Two texts pooled by behaviour pass it: three failing texts are not k more.
    const pooled = [valid(4, 'x', 'behaviour:1'), valid(5, 'y', 'behaviour:1')];
    const three = [failed(1, 'd', 'a'), failed(2, 'd', 'b'), failed(3, 'd', 'c')];
    expect(testContest([...pooled, ...three], 2)).toBeUndefined();
    expect(testContest([...pooled, ...three, failed(6, 'd', 'e')], 2)).toMatchObject({
      failing: 4,
      passing: 2,
    });
  });

  it('is not contested by failures that differ, nor by flags of other kinds', () => {
    expect(
      testContest([failed(0, 'a', 'a'), failed(1, 'b', 'b'), failed(2, 'c', 'c')], 2),
    ).toBeUndefined();
    const other: Draw = {
      slot: 3,
      status: 'flagged',
      flags: [{ rule: 'check-failed', message: '' }],
    };
    expect(testContest([other, { ...other, slot: 4 }, failed(5, 'a', 'a')], 2)).toBeUndefined();
  });
});

describe('a test the code doubts', () => {
  it('is doubted by one candidate that failed it alone, and by no other flag', () => {
    expect(testDoubted([valid(0, 'x'), failed(1, 'd', 'a')])).toBe(true);
    const other: Draw = {
      slot: 2,
      status: 'flagged',
      flags: [{ rule: 'check-failed', message: '' }],
    };
    expect(testDoubted([valid(0, 'x'), other])).toBe(false);
    expect(testDoubted([])).toBe(false);
  });

  it('says why its vote was widened, and a narrow win says it was narrow', () => {
    expect(
      raisedBecause([`${DOUBT_REASON}: 2 candidates that pass the planned check fail it`]),
    ).toBe('');
    expect(raisedBecause(['contested 3 : 1, ahead by exactly k = 2'])).toBe(' after a narrow win');
    expect(raisedBecause(undefined)).toBe(' after a narrow win');
  });
});
