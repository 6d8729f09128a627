import { describe, expect, it } from 'vitest';
import { hanoiSimAgent } from '../../src/adapters/sim/hanoi-sim.js';
import { AnswerWriter } from '../../src/adapters/sim/hanoi-text.js';
import {
  answerKey,
  formatMove,
  formatState,
  apply,
  initialState,
  oracleStep,
  type HanoiAnswer,
  type HanoiMove,
  type HanoiState,
} from '../../src/core/hanoi/hanoi.js';
import { uniform } from '../../src/core/random.js';
import { hanoiParser } from '../../src/core/hanoi/parser.js';
import type { DrawRequest } from '../../src/core/voting/types.js';

const request = (draw: number): DrawRequest => ({
  draw,
  round: 1,
  temperature: draw === 0 ? 0 : 0.1,
  signal: undefined,
});
const input = { previousMove: null, state: initialState(6) };

describe('the simulated Hanoi model', () => {
  it('answers from (seed, step, draw) alone, in whatever order it is asked', () => {
    const a = hanoiSimAgent({ seed: 5, p: 0.7, v: 0.8 });
    const b = hanoiSimAgent({ seed: 5, p: 0.7, v: 0.8 });
    const forward = Array.from({ length: 50 }, (_, d) => a(input, 3, request(d)));
    const backward = Array.from({ length: 50 }, (_, i) => b(input, 3, request(49 - i))).reverse();
    expect(backward).toEqual(forward);
    const other = hanoiSimAgent({ seed: 6, p: 0.7, v: 0.8 });
    expect(Array.from({ length: 50 }, (_, d) => other(input, 3, request(d)))).not.toEqual(forward);
  });

  it('is right with probability p, wrong with one dominant answer, and flagged with probability 1 − v', () => {
    const p = 0.9;
    const v = 0.95;
    const agent = hanoiSimAgent({ seed: 1, p, v, hardRate: 0 });
    const parse = hanoiParser(6);
    const truth = answerKey(oracleStep(input) ?? { move: [0, 0, 0], nextState: input.state });
    const keys = new Map<string, number>();
    let flagged = 0;
    let valid = 0;
    let right = 0;
    const n = 40_000;
    for (let step = 0; step < n; step++) {
      const response = agent(input, step, request(step % 7));
      if (response instanceof Promise) throw new Error('sim answers synchronously');
      const parsed = parse(response);
      if (!parsed.ok || response.finishReason === 'length') {
        flagged += 1;
        continue;
      }
      valid += 1;
      const key = answerKey(parsed.value);
      if (key === truth) right += 1;
      else keys.set(key, (keys.get(key) ?? 0) + 1);
    }
    expect(flagged / n).toBeCloseTo(1 - v, 2);
    expect(right / valid).toBeCloseTo(p, 2);
    expect(keys.size).toBe(1); // one dominant wrong answer: the worst case
  });

  it('makes hard steps err more, spread over three wrong answers', () => {
    const agent = hanoiSimAgent({
      seed: 2,
      p: 1,
      v: 1,
      hardRate: 1,
      hardErrorRate: 0.5,
      hardLongRate: 0,
    });
    const parse = hanoiParser(6);
    const keys = new Set<string>();
    for (let draw = 0; draw < 200; draw++) {
      const response = agent(input, 0, request(draw));
      if (response instanceof Promise) throw new Error('sim answers synchronously');
      const parsed = parse(response);
      if (parsed.ok) keys.add(answerKey(parsed.value));
    }
    expect(keys.size).toBe(4);
  });

  it('renders its texts exactly as formatMove and formatState write them', () => {
    const writer = new AnswerWriter();
    const expected = (a: HanoiAnswer) =>
      `move = ${formatMove(a.move)}\nnext_state = ${formatState(a.nextState)}`;
    for (let trial = 0; trial < 2000; trial++) {
      const disks = 1 + Math.floor(uniform(3, trial) * 150);
      const pegs: number[][] = [[], [], []];
      for (let d = disks; d >= 1; d--) pegs[Math.floor(uniform(3, trial, d) * 3)]?.push(d);
      const answer = { move: [1, trial % 3, 2], nextState: pegs } as unknown as HanoiAnswer;
      expect(writer.render(answer)).toBe(expected(answer));
    }
    for (const odd of [
      { move: [-1, 0, 2], nextState: [[1], [], []] },
      { move: [1, 0, 2], nextState: [[1.5], [2 ** 60], []] },
      { move: [123456789, 0, 2], nextState: [[], [], [10, 9, 100]] },
    ] as unknown as HanoiAnswer[])
      expect(writer.render(odd)).toBe(expected(odd));
  });

  it('renders a move applied to a state as it renders the applied state', () => {
    const writer = new AnswerWriter();
    const expected = (move: HanoiMove, state: HanoiState) =>
      `move = ${formatMove(move)}\nnext_state = ${formatState(state)}`;
    for (let trial = 0; trial < 500; trial++) {
      const disks = 1 + Math.floor(uniform(4, trial) * 40);
      const pegs: number[][] = [[], [], []];
      for (let d = disks; d >= 1; d--) pegs[Math.floor(uniform(4, trial, d) * 3)]?.push(d);
      const state = pegs as unknown as HanoiState;
      const change: HanoiMove = [1 + (trial % disks), trial % 3, Math.floor(trial / 3) % 3];
      const move: HanoiMove = [trial % 7, 0, 2];
      expect(writer.renderMoved(move, state, change)).toBe(
        expected(move, apply(state, change).nextState),
      );
      expect(writer.renderMoved(move, state, [0, -1, -1])).toBe(expected(move, state));
    }
  });
});
