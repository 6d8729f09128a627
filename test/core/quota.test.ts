import { describe, expect, it } from 'vitest';
import {
  DAILY_REQUESTS,
  expectedRequests,
  quotaVerdict,
  subtasksWithin,
} from '../../src/core/quota.js';

describe('model requests of a run', () => {
  it('with every sample right and k = 1, one draw per vote: minimal votes on every node, split votes on every split', () => {
    // 4 subtasks: a tree of 7 nodes with 3 splits.
    expect(expectedRequests({ subtasks: 4, k: 1, p: 1 })).toEqual({
      subtasks: 4,
      drawsPerVote: 1,
      planner: 7 + 3,
      workers: 4 + 3,
      judges: 4,
      total: 21,
    });
  });

  it('grows with k and with a lower success rate', () => {
    const base = expectedRequests({ subtasks: 10, k: 2, p: 0.9 }).total;
    expect(expectedRequests({ subtasks: 10, k: 3, p: 0.9 }).total).toBeGreaterThan(base);
    expect(expectedRequests({ subtasks: 10, k: 2, p: 0.7 }).total).toBeGreaterThan(base);
  });

  it('a node cap of n allows (n + 1) / 2 subtasks', () => {
    expect(subtasksWithin(60)).toBe(30);
    expect(subtasksWithin(1)).toBe(1);
  });

  it('asks first above half of the daily limit: the declared one, else the access’s known one', () => {
    expect(DAILY_REQUESTS['gemini-cli'].limit).toBe(1000);
    expect(DAILY_REQUESTS.key.limit).toBe(250);
    expect(quotaVerdict(501, 'gemini-cli')).toMatchObject({ limit: 1000, overHalf: true });
    expect(quotaVerdict(500, 'gemini-cli')).toMatchObject({ limit: 1000, overHalf: false });
    // A key may be a paid one: its free limit is said, and asked about once declared.
    expect(quotaVerdict(126, 'key')).toMatchObject({ limit: 250, overHalf: false });
    expect(quotaVerdict(126, 'key', 250)).toMatchObject({ limit: 250, overHalf: true });
    expect(quotaVerdict(400, 'gemini-cli')).toMatchObject({ overHalf: false });
    expect(quotaVerdict(400, 'gemini-cli', 500)).toMatchObject({ limit: 500, overHalf: true });
    expect(quotaVerdict(10_000, 'vertex')).toMatchObject({ limit: undefined, overHalf: false });
    expect(quotaVerdict(10_000, undefined)).toMatchObject({ overHalf: false });
  });
});
