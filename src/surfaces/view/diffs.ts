import { clip } from '../../core/limits.js';
import type { Run } from '../../core/tree/schema.js';

/** A diff between two commits or trees, from git. */
export type DiffOf = (from: string, to: string) => Promise<string>;

/**
 * `diffOf` remembering its last `max` answers (a diff between two commits never changes; a failed
 * one is asked again next time).
 */
export function memoDiff(diffOf: DiffOf, max = 512): DiffOf {
  const held = new Map<string, Promise<string>>();
  return (from, to) => {
    const key = `${from}..${to}`;
    const hit = held.get(key);
    if (hit !== undefined) return hit;
    const diff = diffOf(from, to);
    held.set(key, diff);
    diff.catch(() => held.delete(key));
    if (held.size > max) held.delete(held.keys().next().value as string);
    return diff;
  };
}

/** Longest diff shown for one candidate. */
export const DIFF_CHARS = 20_000;

/** A vote's candidate's diff, by its tree (or landed commit); `winner`: whether it won the vote. */
export type CandidateDiff = (key: string, winner: boolean) => Promise<string | null>;

/**
 * The diff of a candidate against `base` (none without a base: a vote not on code), each asked
 * once however many cards show it, and clipped; a failed one says why it is missing.
 */
export function candidateDiffs(
  run: Run,
  base: string | undefined,
  diffOf: DiffOf | undefined,
): CandidateDiff {
  const diffs = new Map<string, Promise<string | null>>();
  // A run that ended keeps only what it committed: its losing candidates' trees are gone.
  const ended = run.status === 'done' || run.status === 'vetoed';
  return (key, winner) => {
    if (base === undefined || diffOf === undefined) return Promise.resolve(null);
    let diff = diffs.get(key);
    if (diff === undefined) {
      diff = diffOf(base, key).then(
        (text) => clip(text, DIFF_CHARS),
        (error: unknown) =>
          ended && !winner
            ? '(not kept: a finished run keeps only the changes it committed, so this candidate’s change is gone; its summary and votes remain)'
            : `(the diff is not available: ${error instanceof Error ? error.message : String(error)})`,
      );
      diffs.set(key, diff);
    }
    return diff;
  };
}
