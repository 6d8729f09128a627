import type { Run } from '../../core/tree/schema.js';

/** Flat, collision-free branch names: `maker/<run>/n-root`, `maker/<run>/n-0-1`. */
export function branchName(runId: string, nodeId: string): string {
  return `maker/${runId}/n-${nodeId}`;
}

/** Commit date for everything a run writes: fixed, so redoing a commit after a crash yields the same id. */
export function runDate(run: Run): Date {
  return new Date(run.createdAt);
}
