import type { StateFile } from '../../core/tree/schema.js';
import type { Reservation, SessionBudget } from '../../ports/worker.js';

/** What the ledger reads and writes: the whole state file (every run shares it), the time, a save. */
export interface LedgerDeps {
  readonly state: StateFile;
  readonly now: () => Date;
  save(): Promise<void>;
}

/**
 * Counts one session of `workerId` in the workspace's ledger (shared by every run in the state
 * file), unless `budget.limit` sessions already started within `budget.windowMs`. The ledger keeps
 * only the window, and is saved before the session is created: a crash can only over-count.
 */
export async function reserveSession(
  deps: LedgerDeps,
  workerId: string,
  budget: SessionBudget,
): Promise<Reservation> {
  const ledger = (deps.state.ledger ??= { sessionStarts: {} });
  const now = deps.now().getTime();
  const recent = (ledger.sessionStarts[workerId] ?? [])
    .filter((t) => now - Date.parse(t) < budget.windowMs)
    .sort();
  if (recent.length >= budget.limit) {
    const oldest = Date.parse(recent[recent.length - budget.limit] ?? new Date(now).toISOString());
    return { ok: false, used: recent.length, nextAt: new Date(oldest + budget.windowMs) };
  }
  recent.push(new Date(now).toISOString());
  ledger.sessionStarts[workerId] = recent;
  await deps.save();
  return { ok: true };
}
