import { describe, expect, it } from 'vitest';
import { answerKey, canonicalKey, type HanoiAnswer } from '../../src/core/hanoi/hanoi.js';
import { hanoiParser } from '../../src/core/hanoi/parser.js';
import { isRegExpSpace, isWordChar } from '../../src/core/hanoi/scan.js';
import type { ResponseParser } from '../../src/core/red-flags/index.js';
import { referenceHanoiParser } from '../fakes/hanoi-parser-reference.js';
import { hanoiSamples, SAMPLE_DISKS } from '../helpers/hanoi-samples.js';

type Parser = ResponseParser<{ readonly text: string }, HanoiAnswer>;

/** Why the two parsers disagree on `text`, or undefined when they agree. */
function disagreement(fast: Parser, reference: Parser, text: string): string | undefined {
  const a = fast({ text });
  const b = reference({ text });
  if (!a.ok || !b.ok) {
    if (a.ok !== b.ok) return `accepted by ${a.ok ? 'the new' : 'the reference'} parser only`;
    if (a.ok || b.ok) return undefined;
    return a.flag.rule === b.flag.rule && a.flag.message === b.flag.message
      ? undefined
      : `flags differ: ${JSON.stringify(a.flag)} vs ${JSON.stringify(b.flag)}`;
  }
  const same = (x: readonly number[], y: readonly number[]) =>
    x.length === y.length && x.every((v, i) => Object.is(v, y[i]));
  if (!same(a.value.move, b.value.move)) return 'moves differ';
  if (!a.value.nextState.every((peg, i) => same(peg, b.value.nextState[i] ?? [])))
    return 'states differ';
  const canonical = canonicalKey(b.value.move, b.value.nextState);
  if (answerKey(a.value) !== canonical)
    return `key ${answerKey(a.value)} is not the canonical ${canonical}`;
  return undefined;
}

/** The outcome's class, to show that the generator reaches every rule. */
function outcomeOf(parse: Parser, text: string): string {
  const result = parse({ text });
  if (result.ok) return 'accepted';
  return result.flag.message.replace(/\d+|\[.*\]/gs, '#').slice(0, 48);
}

describe('the one-pass Hanoi parser against the regex reference', () => {
  it('agrees on a million generated answers, valid and corrupted, sample by sample', () => {
    const fast = new Map<number, Parser>(SAMPLE_DISKS.map((d) => [d, hanoiParser(d)]));
    const reference = new Map<number, Parser>(
      SAMPLE_DISKS.map((d) => [d, referenceHanoiParser(d)]),
    );
    const next = hanoiSamples(13);
    const outcomes = new Map<string, number>();
    const mismatches: { text: string; why: string }[] = [];
    const total = 1_000_000;
    for (let i = 0; i < total; i++) {
      const { disks, text } = next();
      const a = fast.get(disks) as Parser;
      const b = reference.get(disks) as Parser;
      const why = disagreement(a, b, text);
      if (why !== undefined && mismatches.length < 5) mismatches.push({ text, why });
      if (i % 16 === 0) {
        const outcome = outcomeOf(b, text);
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }
    }
    expect(mismatches).toEqual([]);
    // The generator reaches acceptance and every flag the parser can raise.
    const seen = (prefix: string) =>
      [...outcomes].filter(([k]) => k.startsWith(prefix)).reduce((n, [, c]) => n + c, 0);
    const sampled = total / 16;
    expect(seen('accepted')).toBeGreaterThan(sampled * 0.15);
    for (const flag of [
      'Malformed answer: no "move',
      'Malformed answer: the move',
      'Malformed answer: no "next_state',
      'Malformed answer: the state',
      'Malformed answer: disk # is not between',
      'Malformed answer: disk # appears more',
      'Malformed answer: # of the # disks are missing',
    ])
      expect(seen(flag), flag).toBeGreaterThan(sampled * 0.001);
  });

  it.each([
    ['a trailing comma and a space', 'move = [1, 0, 1, ]\nnext_state = [[4, 3, 2, ], [1], []]'],
    ['a negative zero', 'move = [-0, 0, 1]\nnext_state = [[4, 3, 2], [1], []]'],
  ])('keys %s by its values (the reference cached its raw text as the key)', (_name, text) => {
    const fast = hanoiParser(4)({ text });
    const reference = referenceHanoiParser(4)({ text });
    expect(fast.ok && reference.ok).toBe(true);
    if (!fast.ok || !reference.ok) return;
    expect(answerKey(fast.value)).toBe(canonicalKey(fast.value.move, fast.value.nextState));
    expect(answerKey(reference.value)).not.toBe(answerKey(fast.value));
  });

  it('classifies every UTF-16 code unit as the regular expressions do', () => {
    const space: number[] = [];
    const word: number[] = [];
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c);
      if (/\s/.test(ch) !== isRegExpSpace(c)) space.push(c);
      if (/\w/i.test(ch) !== isWordChar(c)) word.push(c);
    }
    expect({ space, word }).toEqual({ space: [], word: [] });
  });
});
