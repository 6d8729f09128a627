/**
 * Readers of Python int-list literals (`[1, 2, 3]`, `[]`, `[1,]`) at a position in a text, as the
 * paper's parser reads them: integers with an optional minus and no leading zeros (and at most 15
 * digits, so every value is exact), only space, tab, line feed and carriage return between
 * tokens, a trailing comma allowed. Each read is one pass over the literal and allocates nothing
 * beyond its result.
 */

import { codeAt } from './scan.js';

const COMMA = 44;
const MINUS = 45;
const ZERO = 48;
const NINE = 57;
const OPEN = 91;
const CLOSE = 93;
const SPACE = 32;

/** The canonical answer text around its two lists: `move = [1, 0, 2]\nnext_state = [[...], ...]`. */
export const CANONICAL_MOVE = 'move = ';
export const CANONICAL_STATE = '\nnext_state = ';
const MOVE_CODES = codesOf(CANONICAL_MOVE);
const STATE_CODES = codesOf(CANONICAL_STATE);

function codesOf(text: string): Uint16Array {
  return Uint16Array.from(text, (ch) => ch.charCodeAt(0));
}

/** Whether `codes` occur in `text` at `at`: a loop of reads, cheaper here than `startsWith`. */
function startsWithCodes(text: string, at: number, codes: Uint16Array): boolean {
  if (at + codes.length > text.length) return false;
  for (let j = 0; j < codes.length; j++) if (text.charCodeAt(at + j) !== codes[j]) return false;
  return true;
}

function isSpace(c: number): boolean {
  return c === SPACE || c === 9 || c === 10 || c === 13;
}

/** The scratch and outcome of reads; one per parser, reused for every read (not reentrant). */
export class ListReader {
  /** One past the last `]` read. */
  end = 0;
  /**
   * Whether the text read was exactly the canonical rendering (`formatState`'s): `, ` between
   * items, no other white space, no trailing comma, no `-0`.
   */
  canonical = true;
  /** Items read by {@link readIntList}, and how many (only the first three are kept). */
  count = 0;
  first = 0;
  second = 0;
  third = 0;
  /** The first disk problem {@link readState} met, if any (reported only if the syntax holds). */
  problem: string | undefined;
  readonly #disks: number;
  #value = 0;
  /** `seenAt[d] === generation`: disk d was seen in the current read. */
  readonly #seenAt: Uint32Array;
  #generation = 0;
  // readState's scan: the text, the index, the code there (−1 past the end), whether all read so
  // far is canonical, the first disk problem met and how many disks were kept.
  #text = '';
  #i = 0;
  #c = 0;
  #canonical = true;
  #problem: string | undefined;
  #stored = 0;

  constructor(disks: number) {
    this.#disks = disks;
    this.#seenAt = new Uint32Array(disks + 1);
  }

  /**
   * A flat int list whose `[` is at `at`: false when the text there is not one. Its length goes
   * to `count` and its first three items to `first`, `second`, `third`.
   */
  readIntList(text: string, at: number): boolean {
    if (codeAt(text, at) !== OPEN) return false;
    let i = at + 1;
    let canonical = true;
    let count = 0;
    let c = codeAt(text, i);
    while (isSpace(c)) {
      canonical = false;
      c = codeAt(text, ++i);
    }
    if (c !== CLOSE) {
      for (;;) {
        let negative = false;
        if (c === MINUS) {
          negative = true;
          c = codeAt(text, ++i);
        }
        const start = i;
        let value = 0;
        while (c >= ZERO && c <= NINE) {
          value = value * 10 + (c - ZERO);
          c = codeAt(text, ++i);
        }
        const digits = i - start;
        if (digits === 0 || digits > 15 || (digits > 1 && codeAt(text, start) === ZERO))
          return false;
        if (negative) {
          if (value === 0) canonical = false;
          value = -value;
        }
        if (count === 0) this.first = value;
        else if (count === 1) this.second = value;
        else if (count === 2) this.third = value;
        count += 1;
        while (isSpace(c)) {
          canonical = false;
          c = codeAt(text, ++i);
        }
        if (c === CLOSE) break;
        if (c !== COMMA) return false;
        c = codeAt(text, ++i);
        if (c === SPACE) c = codeAt(text, ++i);
        else canonical = false;
        while (isSpace(c)) {
          canonical = false;
          c = codeAt(text, ++i);
        }
        if (c === CLOSE) {
          canonical = false; // a trailing comma
          break;
        }
      }
    }
    this.end = i + 1;
    this.canonical = canonical;
    this.count = count;
    return true;
  }

  /**
   * The whole text is exactly the canonical answer, {@link CANONICAL_MOVE} + a canonical move of
   * three integers + {@link CANONICAL_STATE} + a canonical state holding every disk once, and
   * nothing else: its pegs (the move in `first`, `second`, `third`). Undefined on anything else.
   */
  readCanonicalAnswer(text: string): number[][] | undefined {
    // The shortest canonical answer has 42 characters. Its last, `]`, bounds every read below
    // (no digit, sign, comma or space can be the last character), as in readCanonicalState.
    const n = text.length;
    if (n < 42 || text.charCodeAt(n - 1) !== CLOSE || !startsWithCodes(text, 0, MOVE_CODES))
      return undefined;
    let i = MOVE_CODES.length;
    if (text.charCodeAt(i) !== OPEN) return undefined;
    i = this.#canonicalInt(text, i + 1);
    if (i < 0) return undefined;
    this.first = this.#value;
    if (text.charCodeAt(i) !== COMMA || text.charCodeAt(i + 1) !== SPACE) return undefined;
    i = this.#canonicalInt(text, i + 2);
    if (i < 0) return undefined;
    this.second = this.#value;
    if (text.charCodeAt(i) !== COMMA || text.charCodeAt(i + 1) !== SPACE) return undefined;
    i = this.#canonicalInt(text, i + 2);
    if (i < 0) return undefined;
    this.third = this.#value;
    if (text.charCodeAt(i) !== CLOSE || !startsWithCodes(text, i + 1, STATE_CODES))
      return undefined;
    const pegs = this.readCanonicalState(text, i + 1 + STATE_CODES.length);
    if (pegs === undefined || this.end !== n) return undefined;
    this.count = 3;
    return pegs;
  }

  /**
   * An integer in canonical rendering at `i` (as {@link readIntList} reads it, and not `-0`),
   * in a text whose last character is not a digit or `-`: the index after it, or −1. The value
   * goes to `#value`.
   */
  #canonicalInt(text: string, i: number): number {
    let c = text.charCodeAt(i);
    const negative = c === MINUS;
    if (negative) c = text.charCodeAt(++i);
    const start = i;
    let value = 0;
    while (c >= ZERO && c <= NINE) {
      value = value * 10 + (c - ZERO);
      c = text.charCodeAt(++i);
    }
    const digits = i - start;
    if (digits === 0 || digits > 15 || (digits > 1 && text.charCodeAt(start) === ZERO)) return -1;
    if (negative && value === 0) return -1;
    this.#value = negative ? -value : value;
    return i;
  }

  /**
   * The fast path of {@link readState} for the canonical rendering only: `[[3, 2], [], [1]]`,
   * `, ` between items, every disk 1..n exactly once. Undefined on anything else, whether or not
   * {@link readState} would accept it; on success the same pegs, `end` and `canonical` (true) as
   * {@link readState}, and no `problem`. Also undefined when the text does not end with `]`: every
   * read then stops at or before that `]`, so the reads need no bounds checks of their own.
   */
  readCanonicalState(text: string, at: number): number[][] | undefined {
    const n = text.length;
    if (at < 0 || at + 1 >= n || text.charCodeAt(n - 1) !== CLOSE) return undefined;
    if (text.charCodeAt(at) !== OPEN || text.charCodeAt(at + 1) !== OPEN) return undefined;
    const disks = this.#disks;
    const seenAt = this.#seenAt;
    const generation = this.#nextGeneration();
    const pegs: number[][] = [];
    let count = 0;
    let i = at + 2;
    // In bounds: at + 1 < n − 1 would make text[at + 1] the last `]`, not `[`.
    let c = text.charCodeAt(i);
    for (let index = 0; ; index++) {
      const peg: number[] = [];
      if (c !== CLOSE) {
        for (;;) {
          // A digit, a comma or its space is never the last character (a `]`): the next read is in bounds.
          let value = c - ZERO;
          if (!(value >= 1 && value <= 9)) return undefined;
          c = text.charCodeAt(++i);
          while (c >= ZERO && c <= NINE) {
            value = value * 10 + (c - ZERO);
            c = text.charCodeAt(++i);
          }
          if (value > disks || seenAt[value] === generation) return undefined;
          seenAt[value] = generation;
          count += 1;
          peg.push(value);
          if (c === CLOSE) break;
          if (c !== COMMA || text.charCodeAt(i + 1) !== SPACE) return undefined;
          i += 2;
          c = text.charCodeAt(i);
        }
      }
      pegs.push(peg);
      if (index === 2) break;
      // `, [` and the next peg's first character.
      if (
        i + 4 >= n ||
        text.charCodeAt(i + 1) !== COMMA ||
        text.charCodeAt(i + 2) !== SPACE ||
        text.charCodeAt(i + 3) !== OPEN
      )
        return undefined;
      i += 4;
      c = text.charCodeAt(i);
    }
    if (i + 1 >= n || text.charCodeAt(i + 1) !== CLOSE || count !== disks) return undefined;
    this.end = i + 2;
    this.canonical = true;
    this.problem = undefined;
    return pegs;
  }

  /**
   * Exactly three flat int lists in a list (`[[3, 2], [1], []]`, no trailing comma after the
   * third) whose outer `[` is at `at`: the pegs, or undefined when the text there is not that.
   * Checks the disks on the way: `problem` is the first disk out of 1..n, or repeated, or that
   * some are missing, in reading order, as if checked after a successful read.
   */
  readState(text: string, at: number): number[][] | undefined {
    if (codeAt(text, at) !== OPEN) return undefined;
    this.#nextGeneration();
    this.#startScan(text, at + 1);
    const pegs: number[][] = [];
    for (let index = 0; ; index++) {
      if (this.#skipSpace() !== OPEN) return undefined;
      const peg = this.#readPeg();
      if (peg === undefined) return undefined;
      pegs.push(peg);
      const next = this.#advance();
      if (index === 2) break;
      if (next !== COMMA && this.#skipSpace() !== COMMA) return undefined;
      this.#passComma();
    }
    if (this.#skipSpace() !== CLOSE) return undefined;
    this.end = this.#i + 1;
    this.canonical = this.#canonical;
    const disks = this.#disks;
    let problem = this.#problem;
    if (problem === undefined && this.#stored !== disks)
      problem = `${disks - this.#stored} of the ${disks} disks are missing`;
    this.problem = problem;
    return pegs;
  }

  /** Starts {@link readState}'s scan at `i` in `text`, with nothing read yet. */
  #startScan(text: string, i: number): void {
    this.#text = text;
    this.#i = i;
    this.#c = codeAt(text, i);
    this.#canonical = true;
    this.#problem = undefined;
    this.#stored = 0;
  }

  /** One code on: the code there. */
  #advance(): number {
    return (this.#c = codeAt(this.#text, ++this.#i));
  }

  /** Past any white space, which the canonical rendering has none of here: the code after it. */
  #skipSpace(): number {
    while (isSpace(this.#c)) {
      this.#canonical = false;
      this.#advance();
    }
    return this.#c;
  }

  /** Past the comma at the scan and the one space the canonical rendering puts after it: the code after them. */
  #passComma(): number {
    if (this.#advance() === SPACE) return this.#advance();
    this.#canonical = false;
    return this.#c;
  }

  /** The peg whose `[` is at the scan, its disks checked, the scan left on its `]`; undefined if it is not a flat int list. */
  #readPeg(): number[] | undefined {
    const peg: number[] = [];
    this.#advance();
    if (this.#skipSpace() === CLOSE) return peg;
    for (;;) {
      if (!this.#readInt()) return undefined;
      this.#addDisk(peg, this.#value);
      // The canonical separator, `, `, then the next number; anything else the slow way.
      const after = this.#c;
      if (after !== COMMA) {
        const c = this.#skipSpace();
        if (c === CLOSE) return peg;
        if (c !== COMMA) return undefined;
      }
      const c = this.#passComma();
      if ((c < ZERO || c > NINE) && this.#skipSpace() === CLOSE) {
        this.#canonical = false; // a trailing comma
        return peg;
      }
    }
  }

  /**
   * An integer at the scan, as {@link readIntList} reads it: false when there is none. The value
   * goes to `#value`.
   */
  #readInt(): boolean {
    let negative = false;
    if (this.#c === MINUS) {
      negative = true;
      this.#advance();
    }
    const start = this.#i;
    let value = 0;
    while (this.#c >= ZERO && this.#c <= NINE) {
      value = value * 10 + (this.#c - ZERO);
      this.#advance();
    }
    const digits = this.#i - start;
    if (digits === 0 || digits > 15 || (digits > 1 && codeAt(this.#text, start) === ZERO))
      return false;
    this.#value = negative ? -value : value;
    return true;
  }

  /** A disk read: onto `peg` and marked seen, unless it is the first disk problem (or one came before). */
  #addDisk(peg: number[], value: number): void {
    if (this.#problem !== undefined) return;
    const disks = this.#disks;
    if (value < 1 || value > disks) this.#problem = `disk ${value} is not between 1 and ${disks}`;
    else if (this.#seenAt[value] === this.#generation)
      this.#problem = `disk ${value} appears more than once`;
    else {
      this.#seenAt[value] = this.#generation;
      peg.push(value);
      this.#stored += 1;
    }
  }

  /** A fresh mark for `seenAt`; the marks are cleared once the counter reaches 2^30. */
  #nextGeneration(): number {
    if (this.#generation === 0x40000000) {
      this.#seenAt.fill(0);
      this.#generation = 0;
    }
    return ++this.#generation;
  }
}
