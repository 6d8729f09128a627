import type { ResponseParser } from '../../src/core/red-flags/index.js';
import {
  canonicalKey,
  type HanoiAnswer,
  type HanoiMove,
  type HanoiState,
} from '../../src/core/hanoi/hanoi.js';

const MOVE = /\bmove\b\s*=\s*(\[[^[\]]*\])/gi;
const NEXT_STATE =
  /\bnext_state\b\s*=\s*(\[\s*\[[^[\]]*\]\s*,\s*\[[^[\]]*\]\s*,\s*\[[^[\]]*\]\s*\])/gi;

/**
 * The reference for the differential test of `src/core/hanoi/parser.ts`: the regex-based parser
 * as it was before the one-pass rewrite, kept verbatim. Used only by tests.
 *
 * The paper's strict red-flagging parser (`parse_move_state_flag`): the last `move = [...]` and
 * the last `next_state = [[...], [...], [...]]` in the text; the move must be exactly three
 * integers and the state three lists holding each disk 1..n exactly once. Any violation is a
 * `format` flag. Legality and move/state consistency are deliberately not checked: semantic errors
 * are left to voting. Lists are read as Python literals would be (a trailing comma is allowed).
 */
export function referenceHanoiParser(
  disks: number,
): ResponseParser<{ readonly text: string }, HanoiAnswer> {
  const seen = new Uint8Array(disks + 1);
  return (response) => {
    const moveText = lastGroup(MOVE, response.text);
    if (moveText === undefined) return flag('no "move = [disk, from, to]" in the response');
    const move = readIntLists(moveText, false);
    if (move === undefined || move.value.length !== 3)
      return flag(`the move ${moveText} is not a list of three integers`);

    const stateText = lastGroup(NEXT_STATE, response.text);
    if (stateText === undefined)
      return flag('no "next_state = [[...], [...], [...]]" in the response');
    const pegs = readIntLists(stateText, true);
    if (pegs === undefined) return flag(`the state ${stateText} is not three lists of integers`);
    const problem = checkDisks(pegs.value, disks, seen);
    if (problem !== undefined) return flag(problem);

    const nextState = pegs.value as unknown as HanoiState;
    const moveValue = move.value as unknown as HanoiMove;
    const key =
      move.canonical && pegs.canonical
        ? `${moveText}|${stateText}`
        : canonicalKey(moveValue, nextState);
    return { ok: true, value: { move: moveValue, nextState, key } };
  };
}

function flag(why: string): { ok: false; flag: { rule: string; message: string } } {
  return { ok: false, flag: { rule: 'format', message: `Malformed answer: ${why}.` } };
}

function lastGroup(pattern: RegExp, text: string): string | undefined {
  let last: string | undefined;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) last = m[1];
  return last;
}

const COMMA = 44;
const MINUS = 45;
const ZERO = 48;
const NINE = 57;
const OPEN = 91;
const CLOSE = 93;

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/** A parsed list (or list of lists) and whether its text was already in canonical rendering. */
interface ReadResult<T> {
  readonly value: T;
  /** `[a, b]` with exactly `, ` between items and no other whitespace: usable as the vote key as is. */
  readonly canonical: boolean;
}

/**
 * Reads a Python-literal int list (`[1, 2, 3]`, `[]`, `[1,]`) that fills all of `text`; with
 * `nested`, a list of such lists. Undefined when malformed. Integers follow Python: optional minus,
 * no leading zeros.
 */
function readIntLists(text: string, nested: false): ReadResult<number[]> | undefined;
function readIntLists(text: string, nested: true): ReadResult<number[][]> | undefined;
function readIntLists(
  text: string,
  nested: boolean,
): ReadResult<number[] | number[][]> | undefined {
  const n = text.length;
  let i = 0;
  let canonical = true;
  let c = text.charCodeAt(0);
  if (c !== OPEN) return undefined;
  c = text.charCodeAt(++i);
  const outer: number[][] = [];
  let current: number[] = [];
  let depth = 1;
  if (nested) {
    while (isSpace(c)) {
      canonical = false;
      c = text.charCodeAt(++i);
    }
    if (c !== OPEN) return undefined;
    c = text.charCodeAt(++i);
    depth = 2;
  }
  // Inside a list at `depth`; expecting an item or a closing bracket.
  for (;;) {
    while (isSpace(c)) {
      canonical = false;
      c = text.charCodeAt(++i);
    }
    if (c === CLOSE) {
      // empty list, or after a trailing comma (flagged non-canonical by the comma branch)
    } else {
      let negative = false;
      if (c === MINUS) {
        negative = true;
        c = text.charCodeAt(++i);
      }
      const start = i;
      let value = 0;
      while (c >= ZERO && c <= NINE) {
        value = value * 10 + (c - ZERO);
        c = text.charCodeAt(++i);
      }
      const digits = i - start;
      if (digits === 0 || digits > 15 || (digits > 1 && text.charCodeAt(start) === ZERO))
        return undefined;
      current.push(negative ? -value : value);
      while (isSpace(c)) {
        canonical = false;
        c = text.charCodeAt(++i);
      }
      if (c === COMMA) {
        c = text.charCodeAt(++i);
        if (c === 32) c = text.charCodeAt(++i);
        else canonical = false;
        if (isSpace(c)) canonical = false;
        continue;
      }
      if (c !== CLOSE) return undefined;
    }
    // c is a closing bracket: the inner list ends.
    c = text.charCodeAt(++i);
    if (depth === 1) break;
    outer.push(current);
    current = [];
    while (isSpace(c)) {
      canonical = false;
      c = text.charCodeAt(++i);
    }
    if (c === COMMA) {
      c = text.charCodeAt(++i);
      if (c === 32) c = text.charCodeAt(++i);
      else canonical = false;
      while (isSpace(c)) {
        canonical = false;
        c = text.charCodeAt(++i);
      }
      if (c === CLOSE) {
        canonical = false; // trailing comma in the outer list
        i += 1;
        break;
      }
      if (c !== OPEN) return undefined;
      c = text.charCodeAt(++i);
      continue;
    }
    if (c !== CLOSE) return undefined;
    i += 1;
    break;
  }
  while (i < n && isSpace(text.charCodeAt(i))) i++;
  if (i !== n) return undefined;
  return nested ? { value: outer, canonical } : { value: current, canonical };
}

function checkDisks(
  pegs: readonly number[][],
  disks: number,
  seen: Uint8Array,
): string | undefined {
  if (pegs.length !== 3) return `the state has ${pegs.length} pegs, not 3`;
  seen.fill(0);
  let count = 0;
  for (const peg of pegs) {
    for (const disk of peg) {
      if (disk < 1 || disk > disks) return `disk ${disk} is not between 1 and ${disks}`;
      if (seen[disk] === 1) return `disk ${disk} appears more than once`;
      seen[disk] = 1;
      count += 1;
    }
  }
  return count === disks ? undefined : `${disks - count} of the ${disks} disks are missing`;
}
