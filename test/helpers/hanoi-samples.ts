/**
 * A cheap, seeded generator of Hanoi answers for the parsers' differential test. A pool of
 * well-formed answers in the paper's format with layout variants (spacing, case, trailing commas,
 * Unicode white space, the two assignments in either order) is built once; each sample is a pool
 * entry between a random prefix and suffix (reasoning, earlier or later assignments, broken
 * keywords), and about half the samples are then corrupted one to three times: truncated,
 * characters dropped, inserted or replaced, brackets swapped, numbers replaced by huge, signed,
 * zero-padded, fractional or non-ASCII ones, keywords broken, pegs or move items added or removed,
 * pieces duplicated.
 */
export interface GeneratedSample {
  readonly disks: number;
  readonly text: string;
}

export const SAMPLE_DISKS = [1, 2, 3, 4, 6, 20] as const;

export function hanoiSamples(seed: number): () => GeneratedSample {
  const random = mulberry32(seed);
  const int = (n: number): number => Math.floor(random() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const chance = (p: number): boolean => random() < p;

  const list = (items: readonly (number | string)[]): string => {
    if (chance(0.7)) return `[${items.join(', ')}]`;
    let out = `[${chance(0.8) ? '' : pick(PADS)}`;
    for (let i = 0; i < items.length; i++) out += (i === 0 ? '' : pick(SEPARATORS)) + items[i];
    return `${out}${chance(0.7) ? '' : pick(TRAILERS)}]`;
  };
  const state = (disks: number): string => {
    const pegs: number[][] = [[], [], []];
    for (let d = disks; d >= 1; d--) pegs[int(3)]?.push(d);
    if (chance(0.05)) pegs[int(3)]?.reverse();
    const inner = pegs.map(list);
    if (chance(0.7)) return `[${inner.join(', ')}]`;
    return `[${pick(PADS)}${inner[0]}${pick(SEPARATORS)}${inner[1]}${pick(SEPARATORS)}${inner[2]}${pick(PADS)}]`;
  };
  const answer = (disks: number): string => {
    const move = `${pick(MOVE_WORDS)}${pick(ASSIGN)}${list([1 + int(disks), int(3), int(3)])}`;
    const next = `${pick(STATE_WORDS)}${pick(ASSIGN)}${state(disks)}`;
    return chance(0.9) ? `${move}${pick(BETWEEN)}${next}` : `${next}${pick(BETWEEN)}${move}`;
  };
  // Flat strings, as a model's response decoded from JSON is (truncated samples are slices).
  const pool = SAMPLE_DISKS.map((disks) =>
    Array.from({ length: 500 }, () => JSON.parse(JSON.stringify(answer(disks))) as string),
  );

  /** Replaces the first `target` at or after a random position (or before it) with `by()`. */
  const replaceOne = (text: string, targets: readonly string[], by: () => string): string => {
    const target = pick(targets);
    let at = text.indexOf(target, int(text.length));
    if (at < 0) at = text.indexOf(target);
    return at < 0 ? text : join(text.slice(0, at), by(), text.slice(at + target.length));
  };
  /** Replaces the digit run around a random digit with `by()`. */
  const replaceNumber = (text: string): string => {
    let at = int(text.length);
    const isDigit = (i: number) => text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57;
    while (at < text.length && !isDigit(at)) at++;
    if (at === text.length) return text;
    let end = at;
    while (end < text.length && isDigit(end)) end++;
    return join(text.slice(0, at), pick(ODD_NUMBERS), text.slice(end));
  };

  const corruptions: ((text: string) => string)[] = [
    (t) => t.slice(0, int(t.length + 1)),
    (t) => {
      const at = int(t.length);
      return join(t.slice(0, at), '', t.slice(at + 1));
    },
    (t) => {
      const at = int(t.length + 1);
      return join(t.slice(0, at), pick(ODD_CHARS), t.slice(at));
    },
    (t) => {
      const at = int(t.length);
      return join(t.slice(0, at), pick(ODD_CHARS), t.slice(at + 1));
    },
    (t) => replaceOne(t, ['[', ']'], () => pick(['[', ']', '(', ')', '{', '}', '［', ''])),
    replaceNumber,
    replaceNumber,
    (t) => replaceOne(t, ['move', 'next_state', 'MOVE', 'NEXT_STATE'], () => pick(BROKEN_WORDS)),
    (t) => replaceOne(t, ['], [', '],['], () => pick(['', ', ', '], [], [', ']', '] ['])),
    (t) => replaceOne(t, [']]'], () => pick(['], []]', ']', '],]', ']]]', ']] ]'])),
    (t) => replaceOne(t, ['1]', '2]', '0]'], () => pick([', 1]', ',]', ', , ]', ', 2, 3]', '1]'])),
    (t) => {
      const a = int(t.length);
      const b = a + int(20);
      return join(t.slice(0, b), t.slice(a, b), t.slice(b));
    },
  ];

  return () => {
    const which = int(SAMPLE_DISKS.length);
    const disks = SAMPLE_DISKS[which] as number;
    let text = join(pick(PREFIXES), pick(pool[which] as string[]), pick(SUFFIXES));
    if (chance(0.5)) {
      const times = 1 + int(3);
      for (let i = 0; i < times; i++) text = pick(corruptions)(text);
    }
    return { disks, text };
  };
}

/** Concatenation into one flat string (as a decoded response is), not a tree of pieces. */
function join(a: string, b: string, c: string): string {
  return [a, b, c].join('');
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MOVE_WORDS = ['move', 'move', 'move', 'move', 'Move', 'MOVE', 'mOvE'];
const STATE_WORDS = ['next_state', 'next_state', 'next_state', 'Next_State', 'NEXT_STATE'];
const ASSIGN = [' = ', ' = ', ' = ', ' = ', '=', ' =', '= ', '\t=\t', ' \u00a0= ', '\n=\n', ' == '];
const BETWEEN = ['\n', '\n', '\n', ' ', '\n\n', '', ', ', '\nand\n', '\r\n'];
const PADS = [' ', '  ', '\n', '\t', '\r', '\u00a0', '\u2003', '\ufeff', '\v'];
const SEPARATORS = [
  ', ',
  ', ',
  ',',
  ' ,',
  ' , ',
  ',  ',
  ',\t',
  ',\n',
  ', \r\n',
  ',\u00a0',
  '\u3000,',
];
const TRAILERS = [',', ', ', ' ', '\t', ',\n', ' ,'];
const PREFIXES = [
  '',
  '',
  '',
  '',
  'Disk 1 moves clockwise.\n',
  '```\n',
  'move = [1, 0, 2] is what I first thought; ',
  'The next_state = [[1], [], []] cannot be right.\n',
  'xmove = [1, 2, 3]\n',
  'remove = [2, 2, 2] and next_states = [[1], [2], [3]]\n',
  'ſmove = [1, 1, 1] ',
  'next_state = [[1, 2], [], []]\n',
];
const SUFFIXES = [
  '',
  '',
  '',
  '',
  '\nDone.',
  '\n```',
  '\nmove = [2, 0, 1]',
  ' next_state = [[2], [1], []]',
  ' moves',
  '\nWait. MOVE=[1,0,1]',
  '\nNEXT_STATE = [ [1] , [], [ ] ]',
  '\nmove = [1, 0]',
  '_',
];
const ODD_CHARS = [
  '[',
  ']',
  ',',
  ' ',
  '\t',
  '\n',
  '\r',
  '\v',
  '\f',
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u200a',
  '\u2028',
  '\u202f',
  '\u3000',
  '\ufeff',
  '\u200b',
  '\u180e',
  '\u0085',
  '-',
  '0',
  '1',
  '9',
  '=',
  '_',
  'a',
  'm',
  'M',
  'e',
  'n',
  'x',
  'ſ',
  'K',
  '٣',
  '０',
  '"',
  '.',
  '\ud83d',
  '😀',
];
const ODD_NUMBERS = [
  '0',
  '00',
  '01',
  '-1',
  '-0',
  '- 1',
  '--1',
  '999999999999999',
  '1000000000000000',
  '12345678901234567890',
  '1.0',
  '1e3',
  '+1',
  '0x1',
  '1_0',
  "'1'",
  '٣',
  '３',
  '²',
  '',
];
const BROKEN_WORDS = [
  'xmove',
  'moves',
  '_move',
  'move_',
  'move1',
  'evom',
  'mοve',
  'next_ſtate',
  'next_state2',
  'Next_State',
  'NEXT_STATE',
  'next state',
  'nextstate',
  '',
];
