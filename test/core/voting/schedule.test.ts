import { describe, expect, it } from 'vitest';
import { firstToAheadByK } from '../../../src/core/voting/first-to-ahead-by-k.js';
import {
  aheadByK,
  candidateSchedule,
  contenders,
  nextVoteStep,
  topTwo,
  type VoteSchedule,
  type VoteStanding,
} from '../../../src/core/voting/schedule.js';
import { uniform } from '../../../src/core/random.js';

const exact = (k: number, maxDraws = 50, first = k): VoteSchedule => ({
  k,
  maxDraws,
  opening: { draws: first },
  stopsOutOfReach: false,
});

const at = (draws: number, valid: number, leaderVotes: number, runnerUpVotes = 0) =>
  ({ draws, valid, leaderVotes, runnerUpVotes }) satisfies VoteStanding;

/** A drawn sample: undefined is red-flagged, a string is the class it votes for. */
type Drawn = string | undefined;

/**
 * Drives `schedule` over `sequence` (the nth draw is `sequence[n]`), drawing each step's batch
 * whole: the draws made and the winner, or why it stopped.
 */
function drive(schedule: VoteSchedule, sequence: (draw: number) => Drawn) {
  const votes = new Map<string, number>();
  let draws = 0;
  let valid = 0;
  for (;;) {
    const top = topTwo(votes.values());
    const step = nextVoteStep(schedule, { draws, valid, ...top });
    if (step.action === 'decided') {
      const winner = [...votes].find(([, v]) => v === top.leaderVotes)?.[0];
      return { draws, winner };
    }
    if (step.action === 'stop') return { draws, stopped: step.reason };
    for (let i = 0; i < step.count; i++, draws++) {
      const key = sequence(draws);
      if (key === undefined) continue;
      valid += 1;
      votes.set(key, (votes.get(key) ?? 0) + 1);
    }
  }
}

/** The candidate vote as `engine/votes.ts` and `core/calibration.ts` drew before the schedule: one draw at a time. */
function referenceCandidateVote(k: number, cap: number, sequence: (draw: number) => Drawn) {
  const votes = new Map<string, number>();
  let d = 0;
  let valid = 0;
  const drawOne = () => {
    const key = sequence(d);
    d += 1;
    if (key === undefined) return;
    valid += 1;
    votes.set(key, (votes.get(key) ?? 0) + 1);
  };
  while (valid < 2 * k - 1 && d < cap) drawOne();
  for (;;) {
    const ranked = [...votes].sort((a, b) => b[1] - a[1]);
    const lead = (ranked[0]?.[1] ?? 0) - (ranked[1]?.[1] ?? 0);
    if (ranked[0] !== undefined && lead >= k) return { draws: d, winner: ranked[0][0] };
    const left = cap - d;
    if (left <= 0 || ranked.length === 0 || lead + left < k) return { draws: d };
    for (let i = 0; i < Math.min(k - lead, left); i++) drawOne();
  }
}

/** Seeded samples: a flag rate, and a few classes the first of which is the most likely. */
const seeded =
  (seed: number, flagRate: number, classes: number) =>
  (draw: number): Drawn => {
    if (uniform(seed, draw, 0) < flagRate) return undefined;
    const u = uniform(seed, draw, 1);
    return `c${Math.min(classes - 1, Math.floor(u * u * classes))}`;
  };

describe('nextVoteStep, exact votes (a first batch of draws, then to the cap)', () => {
  it('opens with the first batch, within the cap', () => {
    expect(nextVoteStep(exact(3), at(0, 0, 0))).toEqual({ action: 'draw', count: 3 });
    expect(nextVoteStep(exact(3, 50, 5), at(0, 0, 0))).toEqual({ action: 'draw', count: 5 });
    expect(nextVoteStep(exact(3, 2), at(0, 0, 0))).toEqual({ action: 'draw', count: 2 });
  });

  it('tops up by k − lead, the most that cannot overshoot', () => {
    expect(nextVoteStep(exact(3), at(3, 3, 2, 1))).toEqual({ action: 'draw', count: 2 });
    // Every draw flagged: no lead, k more.
    expect(nextVoteStep(exact(3), at(3, 0, 0))).toEqual({ action: 'draw', count: 3 });
    expect(nextVoteStep(exact(3, 4), at(3, 3, 1, 1))).toEqual({ action: 'draw', count: 1 });
  });

  it('decides ahead by k, even at the cap; undecided at the cap otherwise', () => {
    expect(nextVoteStep(exact(2), at(2, 2, 2))).toEqual({ action: 'decided' });
    expect(nextVoteStep(exact(2, 4), at(4, 4, 3, 1))).toEqual({ action: 'decided' });
    expect(nextVoteStep(exact(2, 4), at(4, 4, 2, 2))).toEqual({
      action: 'stop',
      reason: 'max-draws',
    });
  });

  it('draws on when no class can get ahead by k within the cap (only candidates stop early)', () => {
    expect(nextVoteStep(exact(3, 6), at(5, 5, 2, 2))).toEqual({ action: 'draw', count: 1 });
  });
});

describe('nextVoteStep, candidate votes (2k − 1 valid, then while a class can get ahead)', () => {
  it('draws until 2k − 1 are valid, flagged ones redrawn, within the cap', () => {
    const s = candidateSchedule(2, 8);
    expect(nextVoteStep(s, at(0, 0, 0))).toEqual({ action: 'draw', count: 3 });
    expect(nextVoteStep(s, at(3, 1, 1))).toEqual({ action: 'draw', count: 2 });
    expect(nextVoteStep(s, at(7, 1, 1))).toEqual({ action: 'draw', count: 1 });
  });

  it('decides when the opening ends ahead by k, also when the cap ended it', () => {
    expect(nextVoteStep(candidateSchedule(2, 8), at(3, 3, 3))).toEqual({ action: 'decided' });
    expect(nextVoteStep(candidateSchedule(2, 4), at(4, 2, 2))).toEqual({ action: 'decided' });
  });

  it('stops when no class can get ahead by k within the cap, or none has a vote', () => {
    const s = candidateSchedule(2, 8);
    expect(nextVoteStep(s, at(7, 7, 3, 3))).toEqual({ action: 'stop', reason: 'out-of-reach' });
    expect(nextVoteStep(s, at(6, 6, 3, 3))).toEqual({ action: 'draw', count: 2 });
    expect(nextVoteStep(s, at(8, 0, 0))).toEqual({ action: 'stop', reason: 'max-draws' });
  });

  it('keeps the opening of the margin it started at when k is raised', () => {
    const raised = candidateSchedule(3, 12, 2);
    expect(raised.opening).toEqual({ valid: 3 });
    expect(nextVoteStep(raised, at(3, 3, 2, 1))).toEqual({ action: 'draw', count: 2 });
  });
});

describe('one schedule, the same draws as before', () => {
  it('draws as the one-at-a-time candidate vote did, with the same winners', () => {
    for (let seed = 1; seed <= 400; seed++)
      for (const k of [1, 2, 3]) {
        const sequence = seeded(seed, (seed % 5) / 10, 1 + (seed % 4));
        const cap = 4 * k + (seed % 3);
        expect(drive(candidateSchedule(k, cap), sequence)).toMatchObject(
          referenceCandidateVote(k, cap, sequence),
        );
      }
  });

  it('matches firstToAheadByK on exact votes, draw for draw', async () => {
    for (let seed = 1; seed <= 200; seed++) {
      const k = 1 + (seed % 3);
      const sequence = seeded(seed, (seed % 4) / 10, 2 + (seed % 3));
      const result = await firstToAheadByK({
        k,
        maxDraws: 20,
        keyOf: (key: string) => key,
        sample: ({ draw }) => {
          const key = sequence(draw);
          return key === undefined ? { ok: false, flags: [] } : { ok: true, value: key };
        },
      });
      const driven = drive(exact(k, 20), sequence);
      expect(result.draws).toBe(driven.draws);
      expect(result.status === 'decided' ? result.key : undefined).toBe(driven.winner);
    }
  });
});

describe('a misconception the samples share', () => {
  // The same wrong answer, word for word, most of the time: the rule counts it like any class.
  const misconceived = (draw: number): Drawn => (draw % 3 === 1 ? 'right' : 'wrong');

  it('wins the vote it should win under the rule; the schedule does not "fix" it', async () => {
    expect(drive(candidateSchedule(2, 8), misconceived)).toEqual({ draws: 4, winner: 'wrong' });
    const result = await firstToAheadByK({
      k: 2,
      keyOf: (key: string) => key,
      sample: ({ draw }) => ({ ok: true, value: misconceived(draw) ?? '' }),
    });
    expect(result).toMatchObject({ status: 'decided', key: 'wrong', votes: 3, draws: 4 });
  });

  it('is outvoted only when the right answer leads by k', () => {
    const mostlyRight = (draw: number): Drawn => (draw % 3 === 0 ? 'wrong' : 'right');
    expect(drive(candidateSchedule(2, 8), mostlyRight)).toEqual({ draws: 6, winner: 'right' });
  });
});

describe('topTwo', () => {
  it('gives the best count and the best among the rest, ties included', () => {
    expect(topTwo([])).toEqual({ leaderVotes: 0, runnerUpVotes: 0 });
    expect(topTwo([1, 3, 2])).toEqual({ leaderVotes: 3, runnerUpVotes: 2 });
    expect(topTwo([2, 2])).toEqual({ leaderVotes: 2, runnerUpVotes: 2 });
  });
});

describe('the ahead-by-k rule, as every vote applies it', () => {
  // Proves: the one decision and the one choice of contenders that exact votes, candidate votes
  // and text votes share: a margin of exactly k decides, one short does not.
  it('decides at a margin of k, not k − 1', () => {
    expect(aheadByK(5, 2, 3)).toBe(true);
    expect(aheadByK(4, 2, 3)).toBe(false);
    expect(aheadByK(1, 0, 1)).toBe(true);
  });

  it('keeps as contenders the classes the leader is not ahead of by k, the leader with them', () => {
    const classes = [
      { key: 'a', votes: 4 },
      { key: 'b', votes: 3 },
      { key: 'c', votes: 2 },
      { key: 'd', votes: 1 },
    ];
    expect(contenders(classes, 4, 3).map((c) => c.key)).toEqual(['a', 'b', 'c']);
    expect(contenders(classes, 4, 1).map((c) => c.key)).toEqual(['a']);
  });
});
