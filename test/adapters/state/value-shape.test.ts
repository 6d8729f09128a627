import { describe, expect, it } from 'vitest';
import { sameShape, shapeOf } from '../../../src/adapters/state/value-shape.js';
import type { Draw, VoteRecord } from '../../../src/core/tree/schema.js';

const draw = (slot: number, key = 'k'): Draw => ({
  slot,
  status: 'valid',
  key,
  value: { big: [1, 2] },
  flags: [],
});

function vote(): VoteRecord {
  return {
    attempt: 0,
    draws: [draw(0), draw(1)],
    ballots: [],
    outcome: { status: 'decided', key: 'k', votes: 2, runnerUpVotes: 0, draws: 2, flagged: 0 },
  };
}

describe('value shapes (what a cached text was built from)', () => {
  it.each<[string, (v: VoteRecord) => void]>([
    ['a field changed', (v) => (v.attempt = 1)],
    ['a nested field changed in place', (v) => v.outcome && (v.outcome.votes = 3)],
    ['a nested object replaced by one with other values', (v) => (v.outcome = undefined)],
    ['a field added', (v) => (v.retired = { samples: 2, flagged: 0 })],
    ['a field removed', (v) => delete v.outcome],
    ['a draw replaced', (v) => (v.draws[1] = draw(1, 'other'))],
    ['a draw added', (v) => v.draws.push(draw(2))],
    ['a draw dropped', (v) => v.draws.pop()],
    ['a ballot started', (v) => v.ballots.push({ slot: 0, status: 'started', flags: [] })],
  ])('notices %s', (_, change) => {
    const v = vote();
    const shape = shapeOf(v);
    expect(shape).toBeDefined();
    expect(sameShape(v, shape as unknown[])).toBe(true);
    change(v);
    expect(sameShape(v, shape as unknown[])).toBe(false);
  });

  it('holds no draw in progress and nothing nested deeper (those are serialised every time)', () => {
    const started = vote();
    started.draws.push({ slot: 2, status: 'started', flags: [] });
    expect(shapeOf(started)).toBeUndefined();
    expect(shapeOf({ a: { b: { c: 1 } } })).toBeUndefined();
    expect(shapeOf({ a: [[1]] })).toBeUndefined();
  });

  it('compares flat objects in arrays by value, and leaves out the keys it is told to', () => {
    const node = { title: 't', clarifications: [{ question: 'q', answer: 'a' }], status: 'x' };
    const skip = new Set(['status']);
    const shape = shapeOf(node, skip) as unknown[];
    node.status = 'y';
    expect(sameShape(node, shape, skip)).toBe(true);
    node.clarifications = [{ question: 'q', answer: 'a' }];
    expect(sameShape(node, shape, skip)).toBe(true);
    (node.clarifications[0] as { answer: string }).answer = 'b';
    expect(sameShape(node, shape, skip)).toBe(false);
  });
});
