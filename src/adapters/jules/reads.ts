import { JulesError, type CallOptions, type JulesClient } from './client.js';
import { allPages } from './pages.js';
import type { JulesActivity, JulesSession } from './schemas.js';

/** Reads of a known session answered 404 before it counts as gone (Jules may 404 right after a create). */
const NOT_FOUND_READS = 10;

/** The session as Jules reports it; a 404 (brief, right after a create) is read again a few times. */
export async function readSession(
  client: JulesClient,
  id: string,
  call: CallOptions,
  pause: (signal?: AbortSignal) => Promise<void>,
): Promise<JulesSession> {
  for (let misses = 1; ; misses++) {
    try {
      return await client.getSession(id, call);
    } catch (error) {
      if (!(error instanceof JulesError && error.kind === 'not-found') || misses >= NOT_FOUND_READS)
        throw error;
      await pause(call.signal);
    }
  }
}

/** Every activity of a session, page by page (see {@link allPages}: a listing that loops ends). */
export function allActivities(
  client: JulesClient,
  id: string,
  call: CallOptions,
): Promise<JulesActivity[]> {
  return allPages(
    (pageToken) =>
      client.listActivities(
        id,
        { pageSize: 100, ...(pageToken === undefined ? {} : { pageToken }) },
        call,
      ),
    (a) => a.name ?? a.id ?? undefined,
  );
}
