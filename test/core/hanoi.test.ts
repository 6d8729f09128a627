import { describe, expect, it } from 'vitest';
import {
  answerKey,
  apply,
  canonicalKey,
  formatState,
  goalPeg,
  initialState,
  isApplied,
  isGoal,
  oracleStep,
  sameAnswer,
  stepCount,
  strategyMove,
  type HanoiAnswer,
  type HanoiMove,
  type HanoiState,
  type HanoiStepInput,
} from '../../src/core/hanoi/hanoi.js';
import { hanoiParser } from '../../src/core/hanoi/parser.js';
import { hanoiUserPrompt } from '../../src/core/hanoi/prompts.js';

describe('the Hanoi oracle', () => {
  it.each([1, 2, 3, 4, 5, 8, 10, 11])('solves %i disks in 2^n − 1 legal moves', (disks) => {
    let input: HanoiStepInput = { previousMove: null, state: initialState(disks) };
    for (let step = 0; step < stepCount(disks); step++) {
      const answer = oracleStep(input);
      expect(answer).toBeDefined();
      if (answer === undefined) return;
      const [disk, from, to] = answer.move;
      const source = input.state[from as 0 | 1 | 2];
      const target = input.state[to as 0 | 1 | 2];
      expect(source.at(-1)).toBe(disk);
      expect(target.length === 0 || (target.at(-1) as number) > disk).toBe(true);
      input = { previousMove: answer.move, state: answer.nextState };
    }
    expect(isGoal(input.state, disks)).toBe(true);
    expect(input.state[goalPeg(disks)]).toHaveLength(disks);
  });

  it('starts with disk 1 clockwise, as the paper’s oracle does', () => {
    expect(oracleStep({ previousMove: null, state: initialState(4) })?.move).toEqual([1, 0, 1]);
  });

  it('compares an answer with a move applied to a state by value, as sameAnswer with apply does', () => {
    const states: HanoiState[] = [
      [[3, 2, 1], [], []],
      [[3], [2], [1]],
      [[], [3, 1], [2]],
      [[], [], []],
    ];
    const moves: HanoiMove[] = [];
    for (const disk of [1, 2, 3])
      for (let f = 0; f < 3; f++) for (let t = 0; t < 3; t++) moves.push([disk, f, t]);
    let same = 0;
    for (const state of states)
      for (const move of moves)
        for (const answerState of states)
          for (const other of [move, ...moves.slice(0, 4)]) {
            const candidates: HanoiAnswer[] = [
              apply(state, move),
              { move: other, nextState: answerState },
              { move, nextState: apply(answerState, other).nextState },
            ];
            for (const answer of candidates) {
              const expected = sameAnswer(answer, apply(state, move));
              expect(isApplied(answer, state, move), JSON.stringify({ answer, state, move })).toBe(
                expected,
              );
              if (expected) same += 1;
            }
          }
    expect(same).toBeGreaterThan(states.length * moves.length);
  });

  it('gives the oracle’s move without its state', () => {
    let input: HanoiStepInput = { previousMove: null, state: initialState(5) };
    for (let step = 0; step < stepCount(5); step++) {
      const answer = oracleStep(input) as HanoiAnswer;
      expect(strategyMove(input)).toEqual(answer.move);
      input = { previousMove: answer.move, state: answer.nextState };
    }
    expect(strategyMove({ previousMove: null, state: [[1, 2], [], []] })).toBeUndefined();
  });

  it('has no move from a state the strategy cannot be in', () => {
    expect(oracleStep({ previousMove: null, state: [[1, 2], [], []] })).toBeUndefined();
    expect(oracleStep({ previousMove: [1, 0, 1], state: [[], [1], []] })).toBeUndefined();
  });

  it('renders the prompt with only the previous move and the current state', () => {
    const prompt = hanoiUserPrompt({ previousMove: [1, 0, 1], state: [[3, 2], [1], []] });
    expect(prompt).toContain('Previous move: [1, 0, 1]');
    expect(prompt).toContain('Current State: [[3, 2], [1], []]');
    expect(hanoiUserPrompt({ previousMove: null, state: initialState(3) })).toContain(
      'Previous move: None',
    );
  });
});

describe('the strict parser', () => {
  const parse = hanoiParser(4);
  const ok = (text: string) => {
    const result = parse({ text });
    if (!result.ok) throw new Error(result.flag.message);
    return result.value;
  };
  const flagged = (text: string) => {
    const result = parse({ text });
    return result.ok ? undefined : result.flag.message;
  };

  it('reads the move and next state, with any reasoning around them', () => {
    const value = ok(
      'Disk 1 moves clockwise.\nmove = [1, 0, 1]\nnext_state = [[4, 3, 2], [1], []]\nDone.',
    );
    expect(value.move).toEqual([1, 0, 1]);
    expect(value.nextState).toEqual([[4, 3, 2], [1], []]);
  });

  it('takes the last match of each, case-insensitively, and reads Python literals', () => {
    const value = ok(
      'move = [2, 0, 2]\nnext_state = [[4, 3], [2], [1]]\nWait. MOVE=[1,0,1]\nNext_State=[[4,3,2,],[1],[ ]]',
    );
    expect(value.move).toEqual([1, 0, 1]);
    expect(value.nextState).toEqual([[4, 3, 2], [1], []]);
  });

  it('gives answers that differ only in layout the same vote key, and the key of the oracle’s rendering', () => {
    const a = ok('move = [1, 0, 1]\nnext_state = [[4, 3, 2], [1], []]');
    const b = ok('move=[1,0,1] next_state=[ [4,3,2] , [1,], []]');
    expect(answerKey(a)).toBe(answerKey(b));
    expect(answerKey(a)).toBe(answerKey({ move: [1, 0, 1], nextState: [[4, 3, 2], [1], []] }));
    expect(answerKey(a)).not.toBe(
      answerKey(ok('move = [1, 0, 2]\nnext_state = [[4, 3, 2], [], [1]]')),
    );
  });

  it.each([
    ['no move', 'next_state = [[4, 3, 2], [1], []]', /no "move/],
    ['no state', 'move = [1, 0, 1]', /no "next_state/],
    ['a two-element move', 'move = [1, 0]\nnext_state = [[4, 3, 2], [1], []]', /three integers/],
    [
      'a non-integer move',
      'move = [1, 0, "x"]\nnext_state = [[4, 3, 2], [1], []]',
      /three integers/,
    ],
    ['a float', 'move = [1, 0, 1.0]\nnext_state = [[4, 3, 2], [1], []]', /three integers/],
    ['a leading zero', 'move = [1, 0, 01]\nnext_state = [[4, 3, 2], [1], []]', /three integers/],
    [
      'a duplicated disk',
      'move = [1, 0, 1]\nnext_state = [[4, 3, 2, 1], [1], []]',
      /appears more than once/,
    ],
    ['a missing disk', 'move = [1, 0, 1]\nnext_state = [[4, 3], [1], []]', /missing/],
    [
      'a disk out of range',
      'move = [1, 0, 1]\nnext_state = [[5, 3, 2], [1], [4]]',
      /between 1 and 4/,
    ],
    ['two pegs', 'move = [1, 0, 1]\nnext_state = [[4, 3, 2], [1]]', /no "next_state/],
    ['a double comma', 'move = [1,, 0, 1]\nnext_state = [[4, 3, 2], [1], []]', /three integers/],
  ])('flags %s', (_name, text, message) => {
    expect(flagged(text)).toMatch(message);
  });

  it('reads a text that is exactly the canonical answer as any other, and keys it by the text itself', () => {
    const canonical = 'move = [1, 0, 1]\nnext_state = [[4, 3, 2], [1], []]';
    const parse = hanoiParser(4);
    const fast = parse({ text: canonical });
    expect(fast.ok && fast.value.key).toBe(canonical);
    expect(fast.ok && canonicalKey(fast.value.move, fast.value.nextState)).toBe(canonical);
    // Near misses take the general path: the same values (or flag) as with reasoning around them.
    for (const text of [
      `${canonical} `,
      `${canonical}]`,
      canonical.replace('[1, 0, 1]', '[1, 0, 1, 2]'),
      canonical.replace('[1, 0, 1]', '[-0, 0, 1]'),
      canonical.replace('[1, 0, 1]', '[1, 00, 1]'),
      canonical.replace('[1, 0, 1]', '[-1, 0, 1]'),
      canonical.replace('[1], []', '[1, 1], []'),
      canonical.replace('[1], []', '[5], []'),
      canonical.replace('[1], []', '[], []'),
      canonical.replace('[4, 3, 2]', '[4, 3,2]'),
      canonical.replace('[4, 3, 2]', '[2, 3, 4]'),
      canonical.replace('next_state', 'Next_state'),
      canonical.slice(0, -1),
      canonical.replace('\n', ' '),
    ]) {
      const general = parse({ text: `Thinking.\n${text}` });
      const direct = parse({ text });
      expect(direct.ok, text).toBe(general.ok);
      if (direct.ok && general.ok) {
        expect(direct.value.move, text).toEqual(general.value.move);
        expect(direct.value.nextState, text).toEqual(general.value.nextState);
        expect(answerKey(direct.value), text).toBe(answerKey(general.value));
      } else if (!direct.ok && !general.ok) expect(direct.flag, text).toEqual(general.flag);
    }
  });

  it('does not judge legality: an illegal but well-formed answer passes to the vote', () => {
    expect(ok('move = [4, 0, 2]\nnext_state = [[3, 2, 1], [], [4]]').move).toEqual([4, 0, 2]);
  });

  it('formats states as the prompts show them', () => {
    expect(formatState([[3, 2, 1], [], []])).toBe('[[3, 2, 1], [], []]');
  });
});
