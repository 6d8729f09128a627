import { describe, expect, it } from 'vitest';
import { adaptK, kCeiling, type SettledVote } from '../../src/core/voting/adaptive-k.js';

const ROOM = { ceiling: 4, drawsLeft: 4 };

function agreement(leaderVotes: number, runnerUpVotes: number, extra: Partial<SettledVote> = {}) {
  return {
    k: 2,
    settledBy: 'agreement' as const,
    leaderVotes,
    runnerUpVotes,
    validDraws: leaderVotes + runnerUpVotes,
    flaggedDraws: 0,
    ...extra,
  };
}

describe('adaptive k: when a decided vote is narrow, and the k it goes on with', () => {
  it('a contested win ahead by exactly k is narrow: 3 : 1 and 5 : 3 at k = 2 go on at 3', () => {
    expect(adaptK(agreement(3, 1), ROOM)).toEqual({
      narrow: true,
      reasons: ['contested 3 : 1, ahead by exactly k = 2'],
      next: 3,
    });
    expect(adaptK(agreement(5, 3), ROOM)).toMatchObject({ narrow: true, next: 3 });
  });

  it('a clear win is not: 2 : 0 and 3 : 0 (nothing disagreed), 4 : 1 (ahead by more than k)', () => {
    expect(adaptK(agreement(2, 0), ROOM)).toEqual({ narrow: false });
    expect(adaptK(agreement(3, 0), ROOM)).toEqual({ narrow: false });
    expect(adaptK(agreement(4, 1), ROOM)).toEqual({ narrow: false });
  });

  it('judges split, or overruling the samples, make a ballot win narrow', () => {
    const ballots = (lead: number, second: number, chosenVotes: number): SettledVote => ({
      ...agreement(3, 2),
      settledBy: 'ballots',
      ballots: { lead, second },
      chosenVotes,
    });
    expect(adaptK(ballots(2, 0, 3), ROOM)).toEqual({ narrow: false });
    expect(adaptK(ballots(4, 2, 3), ROOM)).toEqual({
      narrow: true,
      reasons: ['judges split 4 : 2'],
      next: 3,
    });
    expect(adaptK(ballots(2, 0, 2), ROOM)).toEqual({
      narrow: true,
      reasons: ["judges chose a class with 2 sample votes over the leader's 3"],
      next: 3,
    });
  });

  it('a win among mostly red-flagged candidates is narrow (the checks disagree with the model)', () => {
    expect(adaptK(agreement(2, 0, { flaggedDraws: 3 }), ROOM)).toEqual({
      narrow: true,
      reasons: ['3 of 5 candidates red-flagged'],
      next: 3,
    });
    expect(adaptK(agreement(2, 0, { flaggedDraws: 2 }), ROOM)).toEqual({ narrow: false });
  });

  it('never past the ceiling (2k) nor the cap on draws: then the vote stands', () => {
    expect(kCeiling(2)).toBe(4);
    expect(adaptK(agreement(5, 1, { k: 4 }), ROOM)).toMatchObject({ narrow: true, next: null });
    expect(adaptK(agreement(3, 1), { ceiling: 4, drawsLeft: 0 })).toMatchObject({
      narrow: true,
      next: null,
    });
    expect(adaptK(agreement(4, 1, { k: 3 }), ROOM)).toMatchObject({ next: 4 });
  });
});
