import { formatFlag, type ResponseParser } from '../red-flags/index.js';
import { canonicalKey, type HanoiAnswer, type HanoiMove, type HanoiState } from './hanoi.js';
import { CANONICAL_MOVE, CANONICAL_STATE, ListReader } from './literals.js';
import {
  flatListEnd,
  keywordBefore,
  MOVE,
  NEXT_STATE,
  skipRegExpSpace,
  stateListEnd,
} from './scan.js';

/**
 * The paper's strict red-flagging parser (`parse_move_state_flag`): the last `move = [...]` and
 * the last `next_state = [[...], [...], [...]]` in the text; the move must be exactly three
 * integers and the state three lists holding each disk 1..n exactly once. Any violation is a
 * `format` flag. Legality and move/state consistency are deliberately not checked: semantic errors
 * are left to voting. Lists are read as Python literals would be (a trailing comma is allowed).
 *
 * "The last match" is that of the regular expressions in `./scan.ts`; the parser finds it by
 * walking back over the text's `=` signs, reading each candidate's value at once, so a
 * well-formed answer is read in one pass. A text that is exactly the canonical answer (as
 * {@link canonicalKey} renders it) is read from its start instead, with the same outcome. The
 * answer's `key` is always {@link canonicalKey} of its values: the text itself when it is exactly
 * the canonical answer, else built from the text's pieces when they are canonical.
 */
export function hanoiParser(disks: number): ResponseParser<{ readonly text: string }, HanoiAnswer> {
  const reader = new ListReader(disks);
  const equalsAt: number[] = [];
  return (response) => {
    const text = response.text;
    // The text is the canonical answer and nothing else: read in one pass, and its own key.
    const canonicalPegs = reader.readCanonicalAnswer(text);
    if (canonicalPegs !== undefined) {
      const move: HanoiMove = [reader.first, reader.second, reader.third];
      const nextState = canonicalPegs as unknown as HanoiState;
      return { ok: true, value: { move, nextState, key: text } };
    }

    let equalsCount = 0;
    for (let at = text.indexOf('='); at >= 0; at = text.indexOf('=', at + 1))
      equalsAt[equalsCount++] = at;

    // Per assignment: its group's start (−1: not found yet) and end, and whether it read well.
    let moveStart = -1;
    let moveEnd = -1;
    let move: HanoiMove | undefined;
    let moveCanonical = false;
    let stateStart = -1;
    let stateEnd = -1;
    let pegs: number[][] | undefined;
    let problem: string | undefined;
    let stateCanonical = false;
    for (let e = equalsCount - 1; e >= 0 && (moveStart < 0 || stateStart < 0); e--) {
      const equals = equalsAt[e] as number;
      if (stateStart < 0 && keywordBefore(text, equals, NEXT_STATE)) {
        const at = skipRegExpSpace(text, equals + 1);
        pegs = reader.readCanonicalState(text, at) ?? reader.readState(text, at);
        if (pegs !== undefined) {
          stateStart = at;
          stateEnd = reader.end;
          stateCanonical = reader.canonical;
          problem = reader.problem;
        } else {
          const end = stateListEnd(text, at);
          if (end >= 0) {
            stateStart = at;
            stateEnd = end;
          }
        }
      } else if (moveStart < 0 && keywordBefore(text, equals, MOVE)) {
        const at = skipRegExpSpace(text, equals + 1);
        if (reader.readIntList(text, at)) {
          moveStart = at;
          moveEnd = reader.end;
          moveCanonical = reader.canonical;
          move = reader.count === 3 ? [reader.first, reader.second, reader.third] : undefined;
        } else {
          const end = flatListEnd(text, at);
          if (end >= 0) {
            moveStart = at;
            moveEnd = end;
          }
        }
      }
    }

    if (moveStart < 0) return flag('no "move = [disk, from, to]" in the response');
    if (move === undefined)
      return flag(`the move ${text.slice(moveStart, moveEnd)} is not a list of three integers`);
    if (stateStart < 0) return flag('no "next_state = [[...], [...], [...]]" in the response');
    if (pegs === undefined)
      return flag(`the state ${text.slice(stateStart, stateEnd)} is not three lists of integers`);
    if (problem !== undefined) return flag(problem);

    const nextState = pegs as unknown as HanoiState;
    const key =
      moveCanonical && stateCanonical
        ? `${CANONICAL_MOVE}${text.slice(moveStart, moveEnd)}${CANONICAL_STATE}${text.slice(stateStart, stateEnd)}`
        : canonicalKey(move, nextState);
    return { ok: true, value: { move, nextState, key } };
  };
}

function flag(why: string): { ok: false; flag: { rule: string; message: string } } {
  return { ok: false, flag: formatFlag(why) };
}
