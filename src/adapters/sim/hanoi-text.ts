import { Buffer } from 'node:buffer';
import {
  apply,
  formatMove,
  formatState,
  type HanoiAnswer,
  type HanoiMove,
  type HanoiState,
} from '../../core/hanoi/hanoi.js';

/**
 * Renders answers in the paper's format, `move = [d, f, t]\nnext_state = [[...], [...], [...]]`,
 * exactly as `formatMove` and `formatState` do, but through one reusable byte buffer: a third of
 * the cost of joining strings, and the result is a flat one-byte string, as a model's response
 * decoded from JSON is (not a tree of concatenations that every reader would first flatten).
 */
export class AnswerWriter {
  #bytes = Buffer.alloc(256);

  render(answer: HanoiAnswer): string {
    return this.renderMoved(answer.move, answer.nextState, UNCHANGED);
  }

  /**
   * The answer `move` with the state `apply(state, change)` (`state` itself when the change's
   * `from` is −1), without building that state.
   */
  renderMoved(move: HanoiMove, state: HanoiState, change: HanoiMove): string {
    const disk = change[0];
    const from = change[1];
    const to = change[2];
    // Two bytes per item and 17 digits at most (safe integers), plus the fixed text.
    const room = 60 + 19 * (move.length + state[0].length + state[1].length + state[2].length);
    if (room > this.#bytes.length) this.#bytes = Buffer.alloc(room * 2);
    const bytes = this.#bytes;
    let at = put(bytes, 0, MOVE);
    at = list(bytes, at, move, move.length, -1);
    at = at < 0 ? at : put(bytes, at, NEXT_STATE);
    for (let peg = 0; peg < 3 && at >= 0; peg++) {
      if (peg > 0) {
        bytes[at++] = COMMA;
        bytes[at++] = SPACE;
      }
      const items = state[peg as 0 | 1 | 2];
      const kept = peg === from ? Math.max(0, items.length - 1) : items.length;
      at = list(bytes, at, items, kept, peg === to ? disk : -1);
    }
    if (at < 0) {
      const after = from < 0 ? state : apply(state, change).nextState;
      return flat(`move = ${formatMove(move)}\nnext_state = ${formatState(after)}`);
    }
    bytes[at++] = CLOSE;
    return bytes.toString('latin1', 0, at);
  }
}

/** The same text as a flat one-byte string (the sim's texts are ASCII). */
export function flat(text: string): string {
  return Buffer.from(text, 'latin1').toString('latin1');
}

/**
 * Writes `[a, b, …]` at `at`, the first `count` items and then `extra` unless it is −1: the index
 * after it, or −1 when an item is not a non-negative safe integer.
 */
function list(
  bytes: Uint8Array,
  at: number,
  items: readonly number[],
  count: number,
  extra: number,
): number {
  bytes[at++] = OPEN;
  const n = extra < 0 ? count : count + 1;
  for (let i = 0; i < n; i++) {
    if (i > 0) {
      bytes[at++] = COMMA;
      bytes[at++] = SPACE;
    }
    const value = i < count ? (items[i] as number) : extra;
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

/** A change that leaves the state as it is. */
export const UNCHANGED: HanoiMove = [0, -1, -1];

const codes = (text: string): readonly number[] => Array.from(text, (ch) => ch.charCodeAt(0));
const SPACE = 32;
const COMMA = 44;
const ZERO = 48;
const OPEN = 91;
const CLOSE = 93;
const MOVE = codes('move = ');
const NEXT_STATE = codes('\nnext_state = [');
