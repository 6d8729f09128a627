/**
 * The pieces of these two regular expressions (JavaScript semantics, flags `gi`, no `u`), matched
 * by hand so that the parser can find their last matches without scanning the text with them:
 *
 *     /\bmove\b\s*=\s*(\[[^[\]]*\])/gi
 *     /\bnext_state\b\s*=\s*(\[\s*\[[^[\]]*\]\s*,\s*\[[^[\]]*\]\s*,\s*\[[^[\]]*\]\s*\])/gi
 *
 * Without `u`, `i` folds ASCII letters only, `\b` and `\w` are ASCII, and `\s` is ECMAScript white
 * space and line terminators. No backtracking can change a match: every `\s*` is followed by a
 * non-space and every `[^[\]]*` by a bracket.
 *
 * Every match holds exactly one `=` outside its brackets, and the keyword ends at the last
 * non-space before it; no match can start inside another (each needs its own `[` after its `=`),
 * so a global scan finds a match at every `=` where one starts, and the last match is the one at
 * the last such `=`.
 */

export const MOVE = 'move';
export const NEXT_STATE = 'next_state';

const UNDERSCORE = 0x5f;
const COMMA = 0x2c;
const OPEN = 0x5b;
const CLOSE = 0x5d;

/**
 * The UTF-16 code unit at `i` (≥ 0), or −1 past the end. Never NaN: a read past the end (a truncated
 * answer) would otherwise turn the readers' small integers into doubles and deoptimise them.
 */
export function codeAt(text: string, i: number): number {
  return i < text.length ? text.charCodeAt(i) : -1;
}

/** `\w` without the `u` flag: ASCII letters, digits and underscore. */
export function isWordChar(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === UNDERSCORE
  );
}

/** `\s`: ECMAScript white space (including U+FEFF and the Zs category) and line terminators. */
export function isRegExpSpace(c: number): boolean {
  if (c < 0x80) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** The first index at or after `at` that is not `\s` (the text's length at the end). */
export function skipRegExpSpace(text: string, at: number): number {
  while (isRegExpSpace(codeAt(text, at))) at += 1;
  return at;
}

/**
 * Whether `\bword\b\s*` ends right before the `=` at `equals` (`word` in lower case, matched
 * case-insensitively,
 * preceded by a non-word character or the start; the boundary after it always holds, since `\s`
 * or `=` follows).
 */
export function keywordBefore(text: string, equals: number, word: string): boolean {
  let last = equals - 1;
  while (last >= 0 && isRegExpSpace(codeAt(text, last))) last -= 1;
  const start = last - word.length + 1;
  if (start < 0) return false;
  if (!text.startsWith(word, start)) {
    // `word` is lower case: compare again with ASCII case folding.
    for (let j = 0; j < word.length; j++) {
      const w = word.charCodeAt(j);
      const c = codeAt(text, start + j);
      if (w === UNDERSCORE ? c !== w : (c | 0x20) !== w) return false;
    }
  }
  return start === 0 || !isWordChar(codeAt(text, start - 1));
}

/** `\[[^[\]]*\]` at `at`: the index after the `]`, or −1. */
export function flatListEnd(text: string, at: number): number {
  if (codeAt(text, at) !== OPEN) return -1;
  const n = text.length;
  for (let j = at + 1; j < n; j++) {
    const c = codeAt(text, j);
    if (c === CLOSE) return j + 1;
    if (c === OPEN) return -1;
  }
  return -1;
}

/** `\[\s*L\s*,\s*L\s*,\s*L\s*\]` at `at`, L a flat list: the index after the last `]`, or −1. */
export function stateListEnd(text: string, at: number): number {
  if (codeAt(text, at) !== OPEN) return -1;
  let j = skipRegExpSpace(text, at + 1);
  for (let list = 0; list < 3; list++) {
    if (list > 0) {
      if (codeAt(text, j) !== COMMA) return -1;
      j = skipRegExpSpace(text, j + 1);
    }
    j = flatListEnd(text, j);
    if (j < 0) return -1;
    j = skipRegExpSpace(text, j);
  }
  return codeAt(text, j) === CLOSE ? j + 1 : -1;
}
