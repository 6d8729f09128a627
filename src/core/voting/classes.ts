import type { Draw } from '../tree/schema.js';

/**
 * The answers of a vote: its valid draws grouped into equivalence classes. Two draws are one answer
 * when their keys are equal, or when their aliases are (the same code up to local names) and their
 * checks gave the same results. A class is named by the key of its first member (the earliest
 * slot), which stands for it: what a ballot shows and what lands.
 */
export interface VoteClass {
  readonly key: string;
  /** The class's valid draws, earliest slot first. */
  readonly members: readonly Draw[];
  readonly votes: number;
  /** The first member. */
  readonly representative: Draw;
}

/** Valid draws as classes, most votes first (earliest first among equals). */
export function voteClasses(draws: readonly (Draw | undefined)[]): VoteClass[] {
  const valid = draws
    .filter((d): d is Draw => d?.status === 'valid' && d.key !== undefined)
    .sort((a, b) => a.slot - b.slot);
  // Union-find over the draws, the earliest draw the root of its class.
  const parent = valid.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i] as number] as number;
    return i;
  };
  const join = (a: number, b: number) => {
    const [x, y] = [find(a), find(b)];
    if (x !== y) parent[Math.max(x, y)] = Math.min(x, y);
  };
  for (let i = 0; i < valid.length; i++)
    for (let j = 0; j < i; j++) {
      const a = valid[i] as Draw;
      const b = valid[j] as Draw;
      if (
        a.key === b.key ||
        (a.alias !== undefined && a.alias === b.alias && sameBehaviour(a.check, b.check))
      )
        join(i, j);
    }
  const groups = new Map<number, Draw[]>();
  for (const [i, draw] of valid.entries()) {
    const root = find(i);
    const group = groups.get(root);
    if (group === undefined) groups.set(root, [draw]);
    else group.push(draw);
  }
  return [...groups.values()]
    .map((members) => {
      const representative = members[0] as Draw;
      return { key: representative.key ?? '', members, votes: members.length, representative };
    })
    .sort((a, b) => b.votes - a.votes || a.representative.slot - b.representative.slot);
}

/** The class a draw belongs to, if it voted. */
export function classOf(classes: readonly VoteClass[], draw: Draw): VoteClass | undefined {
  return classes.find((c) => c.members.some((m) => m.slot === draw.slot));
}

/** What a candidate's check found, as far as classes go. */
export interface CheckOutcome {
  readonly command: string;
  readonly ok: boolean;
}

/**
 * Whether two candidates' checks give the same results: both ran, the same command, with the same
 * outcome. Candidates with no check never join by behaviour.
 */
export function sameBehaviour(a: CheckOutcome | undefined, b: CheckOutcome | undefined): boolean {
  return a !== undefined && b !== undefined && a.command === b.command && a.ok === b.ok;
}
