import type { Run } from '../../core/tree/schema.js';
import type { ServiceWait } from '../../ports/waits.js';
import type { EngineEventInput } from '../events.js';

/** Waits at least this long are shown (progress, `maker status`, `maker_wait`); shorter ones are not. */
export const VISIBLE_WAIT_MS = 5000;

/**
 * Shows a wait on an external service: one of at least {@link VISIBLE_WAIT_MS} is put on the run
 * (saved, so `maker status` in another process sees it) and announced with `wait-start`; the
 * function returned takes it off and announces `wait-end` (once, however often it is called).
 * Shorter waits are not shown.
 */
export function showWait(
  run: Run,
  wait: ServiceWait,
  deps: {
    now: () => Date;
    id: () => string;
    save: () => void;
    emit: (event: EngineEventInput) => void;
  },
): () => void {
  const now = deps.now();
  if (wait.until.getTime() - now.getTime() < VISIBLE_WAIT_MS) return () => undefined;
  const since = wait.since ?? now;
  const id = deps.id();
  const until = wait.until.toISOString();
  run.waits = [
    ...(run.waits ?? []),
    { id, service: wait.service, reason: wait.reason, since: since.toISOString(), until },
  ];
  deps.save();
  deps.emit({
    type: 'wait-start',
    waitId: id,
    service: wait.service,
    reason: wait.reason,
    until,
    since: since.toISOString(),
  });
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    const rest = (run.waits ?? []).filter((w) => w.id !== id);
    run.waits = rest.length === 0 ? undefined : rest;
    deps.save();
    deps.emit({ type: 'wait-end', waitId: id, service: wait.service });
  };
}
