import type { Run, StateFile, VoteRecord } from '../../core/tree/schema.js';
import { ended } from '../engine-deps.js';
import { sampleCounts } from '../../core/view/summary.js';

/** A run whose scratch store goes when another starts: it ended, or it failed. */
function released(run: Run): boolean {
  return ended(run) || run.status === 'failed' || run.status === 'failed-checks';
}

/** `record` started over, its candidates dropped (their objects are gone) but still counted. */
function retire<R extends VoteRecord>(record: R): R {
  return {
    ...record,
    attempt: record.attempt + 1,
    draws: [],
    ballots: [],
    outcome: undefined,
    retired: sampleCounts(record),
  };
}

/**
 * The runs whose scratch object stores stay when `starting` starts: itself, and the runs that may
 * still go on (running here or stopped by a crash, waiting for answers, cancelled). The stores of
 * runs that ended or failed (`failed`, `failed-checks`) go, and with them what their red-flagged
 * candidates wrote; so do those of runs the state no longer has. A failed run's unfinished votes
 * on code (a leaf's, an integration's) start over here, as a resume of it must draw them again.
 */
export function releaseStores(state: StateFile, starting: Run): string[] {
  const kept: string[] = [];
  for (const run of Object.values(state.runs)) {
    if (run.id === starting.id || !released(run)) {
      kept.push(run.id);
      continue;
    }
    if (ended(run)) continue;
    for (const n of Object.values(run.nodes)) {
      if (n.status === 'done') continue;
      if (n.leaf !== undefined && n.leaf.draws.length > 0) n.leaf = retire(n.leaf);
      for (const [key, record] of Object.entries(n.integrations))
        if (record.draws.length > 0) n.integrations[key] = retire(record);
    }
  }
  return kept;
}
