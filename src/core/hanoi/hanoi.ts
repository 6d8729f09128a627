/**
 * Towers of Hanoi as the paper poses it: three pegs listed bottom → top, disk 1 the smallest, pegs
 * 0-indexed, a move is [disk, from, to]. The fixed strategy (given to the agent in its prompt):
 * if the previous move did not move disk 1, move disk 1 clockwise (0 → 1 → 2 → 0); otherwise make
 * the only legal move that does not involve disk 1. With an even number of disks this ends with
 * the tower on peg 2, with an odd number on peg 1.
 */
export type Peg = readonly number[];
export type HanoiState = readonly [Peg, Peg, Peg];
export type HanoiMove = readonly [disk: number, from: number, to: number];

/** One agent call's answer, and one vote: the move together with the state it produces. */
export interface HanoiAnswer {
  readonly move: HanoiMove;
  readonly nextState: HanoiState;
  /** Cached {@link answerKey}, set by the parser (which can often take it straight from the text). */
  readonly key?: string;
}

/** The input of one step: what the agent sees besides the fixed strategy. */
export interface HanoiStepInput {
  readonly previousMove: HanoiMove | null;
  readonly state: HanoiState;
}

export function initialState(disks: number): HanoiState {
  const tower: number[] = [];
  for (let d = disks; d >= 1; d--) tower.push(d);
  return [tower, [], []];
}

/** Steps the strategy takes to move the whole tower: 2^n − 1. */
export function stepCount(disks: number): number {
  return 2 ** disks - 1;
}

/** The peg the strategy ends on. */
export function goalPeg(disks: number): number {
  return disks % 2 === 0 ? 2 : 1;
}

export function isGoal(state: HanoiState, disks: number): boolean {
  const goal = goalPeg(disks);
  return state.every((peg, index) =>
    index === goal
      ? peg.length === disks && peg.every((disk, i) => disk === disks - i)
      : peg.length === 0,
  );
}

/**
 * Ground truth: the strategy's move from `input`, and the state it produces. Returns undefined
 * when the strategy has no move (the state is not one the strategy can reach: disk 1 buried, or
 * no legal move without disk 1).
 */
export function oracleStep(input: HanoiStepInput): HanoiAnswer | undefined {
  const move = strategyMove(input);
  return move === undefined ? undefined : apply(input.state, move);
}

/** The strategy's move from `input` ({@link oracleStep} without the state), or undefined. */
export function strategyMove(input: HanoiStepInput): HanoiMove | undefined {
  const { previousMove, state } = input;
  const onePeg = top(state[0]) === 1 ? 0 : top(state[1]) === 1 ? 1 : top(state[2]) === 1 ? 2 : -1;
  if (onePeg < 0) return undefined;
  if (previousMove === null || previousMove[0] !== 1) return [1, onePeg, (onePeg + 1) % 3];
  const a = (onePeg + 1) % 3;
  const b = (onePeg + 2) % 3;
  const topA = top(state[a as 0 | 1 | 2]);
  const topB = top(state[b as 0 | 1 | 2]);
  if (topA === undefined && topB === undefined) return undefined;
  if (topB === undefined || (topA !== undefined && topA < topB)) return [topA as number, a, b];
  return [topB, b, a];
}

/** Applies a move without checking legality (the caller knows it is the strategy's move). */
export function apply(state: HanoiState, move: HanoiMove): HanoiAnswer {
  const [disk, from, to] = move;
  const pegs = [state[0], state[1], state[2]];
  pegs[from] = (pegs[from] as Peg).slice(0, -1);
  const target = (pegs[to] as Peg).slice();
  target.push(disk);
  pegs[to] = target;
  return { move, nextState: pegs as unknown as HanoiState };
}

function top(peg: Peg): number | undefined {
  return peg[peg.length - 1];
}

/** Whether two answers are the same (move, next_state) pair: what equal {@link answerKey}s mean. */
export function sameAnswer(a: HanoiAnswer, b: HanoiAnswer): boolean {
  return (
    a.move[0] === b.move[0] &&
    a.move[1] === b.move[1] &&
    a.move[2] === b.move[2] &&
    samePeg(a.nextState[0], b.nextState[0]) &&
    samePeg(a.nextState[1], b.nextState[1]) &&
    samePeg(a.nextState[2], b.nextState[2])
  );
}

/**
 * Whether `answer` is `apply(state, move)` — the same move and the same next state — compared by
 * value, without building that state.
 */
export function isApplied(answer: HanoiAnswer, state: HanoiState, move: HanoiMove): boolean {
  const disk = move[0];
  const from = move[1];
  const to = move[2];
  const given = answer.move;
  if (given[0] !== disk || given[1] !== from || given[2] !== to) return false;
  for (let peg = 0; peg < 3; peg++) {
    const before = state[peg as 0 | 1 | 2];
    const after = answer.nextState[peg as 0 | 1 | 2];
    const kept = peg === from ? Math.max(0, before.length - 1) : before.length;
    if (after.length !== (peg === to ? kept + 1 : kept)) return false;
    for (let i = 0; i < kept; i++) if (after[i] !== before[i]) return false;
    if (peg === to && after[kept] !== disk) return false;
  }
  return true;
}

function samePeg(a: Peg, b: Peg): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Renders a state as the prompts and answers write it: `[[3, 2, 1], [], []]`. */
export function formatState(state: HanoiState): string {
  return `[${state.map((peg) => `[${peg.join(', ')}]`).join(', ')}]`;
}

export function formatMove(move: HanoiMove): string {
  return `[${move.join(', ')}]`;
}

/**
 * Equivalence key of an answer: the whole (move, next_state) pair, exactly, as the canonical
 * answer text `move = [d, f, t]\nnext_state = [[...], [...], [...]]` (so a response that is exactly
 * that text is its own key).
 */
export function answerKey(answer: HanoiAnswer): string {
  return answer.key ?? canonicalKey(answer.move, answer.nextState);
}

export function canonicalKey(move: HanoiMove, state: HanoiState): string {
  return `move = ${formatMove(move)}\nnext_state = ${formatState(state)}`;
}
