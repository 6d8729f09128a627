import { Buffer } from 'node:buffer';
import { formatMove, formatState, type HanoiAnswer } from '../../core/hanoi/hanoi.js';

/**
 * Renders answers in the paper's format, `move = [d, f, t]\nnext_state = [[...], [...], [...]]`,
 * exactly as `formatMove` and `formatState` do, but through one reusable byte buffer: a third of
 * the cost of joining strings, and the result is a flat one-byte string, as a model's response
 * decoded from JSON is (not a tree of concatenations that every reader would first flatten).
 */
export class AnswerWriter {
  #bytes = Buffer.alloc(256);

  render(answer: HanoiAnswer): string {
    const { move, nextState } = answer;
    const [a, b, c] = nextState;
    // Two bytes per item and 17 digits at most (safe integers), plus the fixed text.
    const room = 40 + 19 * (move.length + a.length + b.length + c.length);
    if (room > this.#bytes.length) this.#bytes = Buffer.alloc(room * 2);
    const bytes = this.#bytes;
    let at = put(bytes, 0, MOVE);
    at = list(bytes, at, move);
    at = at < 0 ? at : put(bytes, at, NEXT_STATE);
    at = at < 0 ? at : list(bytes, at, a);
    at = at < 0 ? at : put(bytes, at, SEPARATOR);
    at = at < 0 ? at : list(bytes, at, b);
    at = at < 0 ? at : put(bytes, at, SEPARATOR);
    at = at < 0 ? at : list(bytes, at, c);
    if (at < 0) return flat(`move = ${formatMove(move)}\nnext_state = ${formatState(nextState)}`);
    bytes[at++] = CLOSE;
    return bytes.toString('latin1', 0, at);
  }
}

/** The same text as a flat one-byte string (the sim's texts are ASCII). */
export function flat(text: string): string {
  return Buffer.from(text, 'latin1').toString('latin1');
}

/** Writes `[a, b, …]` at `at`: the index after it, or −1 when an item is not a non-negative safe integer. */
function list(bytes: Uint8Array, at: number, items: readonly number[]): number {
  bytes[at++] = OPEN;
  for (let i = 0; i < items.length; i++) {
    if (i > 0) {
      bytes[at++] = COMMA;
      bytes[at++] = SPACE;
    }
    const value = items[i] as number;
    if (value >= 0 && value < 10 && (value | 0) === value) bytes[at++] = ZERO + value;
    else if (value >= 10 && value < 100 && (value | 0) === value) {
      const tens = (value / 10) | 0;
      bytes[at++] = ZERO + tens;
      bytes[at++] = ZERO + value - 10 * tens;
    } else if (Number.isSafeInteger(value) && value >= 0) {
      const digits = String(value);
      for (let d = 0; d < digits.length; d++) bytes[at++] = digits.charCodeAt(d);
    } else return -1;
  }
  bytes[at++] = CLOSE;
  return at;
}

function put(bytes: Uint8Array, at: number, piece: readonly number[]): number {
  for (let i = 0; i < piece.length; i++) bytes[at++] = piece[i] as number;
  return at;
}

const codes = (text: string): readonly number[] => Array.from(text, (ch) => ch.charCodeAt(0));
const SPACE = 32;
const COMMA = 44;
const ZERO = 48;
const OPEN = 91;
const CLOSE = 93;
const MOVE = codes('move = ');
const NEXT_STATE = codes('\nnext_state = [');
const SEPARATOR = codes(', ');
