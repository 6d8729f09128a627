import { UsageError } from '../errors.js';
import { LIMITS } from '../limits.js';

/** A new run's id: the day and a random suffix (`r20250101-ab1c2`). */
export function newRunId(now: Date): string {
  const stamp = now.toISOString().slice(0, 10).replace(/-/g, '');
  return `r${stamp}-${Math.random().toString(36).slice(2, 7)}`;
}

/** Refuses an idea or an overall check a run cannot start with: empty, or over its limit. */
export function checkStart(idea: string, check: string | undefined): void {
  if (idea.trim() === '') throw new UsageError('The idea is empty: say what to build.');
  if (idea.length > LIMITS.ideaChars)
    throw new UsageError(
      `The idea is ${idea.length} characters long; at most ${LIMITS.ideaChars} are taken. Say what to build in fewer words: MAKER asks when it needs detail.`,
    );
  if (check !== undefined && check.trim() === '')
    throw new UsageError('The check is empty: give the command that must pass.');
  if (check !== undefined && check.length > LIMITS.checkChars)
    throw new UsageError(
      `The check is ${check.length} characters long; at most ${LIMITS.checkChars} are taken.`,
    );
}
