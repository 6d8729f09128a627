import { AbortedError } from '../../core/errors.js';
import { clause, sentences } from '../../core/text.js';
import type { CallOptions, CreateSessionRequest, JulesClient } from './client.js';
import { JulesError, SessionBudgetError, duration } from './errors.js';

/** The sessions a worker is polling now, and a way to wait until one of them ends. */
export class RunningSessions {
  readonly #ids = new Set<string>();
  #waiters: (() => void)[] = [];

  get size(): number {
    return this.#ids.size;
  }

  add(id: string): void {
    this.#ids.add(id);
  }

  /** The session reached its end (or its slot stopped polling it): wakes every waiter. */
  end(id: string): void {
    if (!this.#ids.delete(id)) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves when one of the sessions ends, or after `ms`, whichever is first. */
  async oneEnds(
    ms: number,
    sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const timer = new AbortController();
    const onAbort = () => timer.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    let wake: () => void = () => undefined;
    const ended = new Promise<void>((resolve) => {
      wake = resolve;
      this.#waiters.push(resolve);
    });
    try {
      await Promise.race([ended, sleep(ms, timer.signal)]);
    } catch (error) {
      if (!(error instanceof AbortedError) || signal?.aborted === true) throw error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.#waiters = this.#waiters.filter((w) => w !== wake);
      if (!timer.signal.aborted) timer.abort();
    }
    if (signal?.aborted === true) throw new AbortedError(signal.reason);
  }
}

export interface CreateDeps {
  readonly client: JulesClient;
  readonly running: RunningSessions;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now: () => number;
  /** Longest wait between two looks at a plan limit (default 60 s). */
  readonly recheckMs: number;
  /** How long a starting branch Jules does not see yet is asked about again (default 2 min). */
  readonly branchWaitMs?: number;
}

/**
 * Creates the slot's session exactly once and returns its id. A create whose outcome is unknown
 * (no reply, a 5xx, a timeout) is followed by a lookup by title before anything is created again;
 * a concurrent-task limit waits until one of this worker's sessions ends (or, when none runs, up to
 * the outage tolerance); a daily task limit stops the run at once, saying when it frees up. A
 * create Jules refuses (400) says nothing about the candidate, and asking again would be refused
 * the same: it stops the run (`refused`), but for a starting branch Jules does not see yet (pushed
 * a moment ago), asked about again for a while first.
 */
export async function createSessionOnce(
  deps: CreateDeps,
  request: CreateSessionRequest,
  call: CallOptions,
): Promise<string> {
  const { client, now } = deps;
  let unconfirmedSince: number | undefined;
  let limitedSince: number | undefined;
  let branchSince: number | undefined;
  let branchTries = 0;
  for (let attempt = 0; ; attempt++) {
    try {
      return (await client.createSession(request, call)).id;
    } catch (error) {
      if (!(error instanceof JulesError)) throw error;
      if (error.outcomeUnknown) {
        unconfirmedSince ??= now();
        // A session Jules did create may take a moment to be listed: wait (at least as long as
        // Jules asked, by a Retry-After), then look for it.
        await wait(
          deps,
          call,
          Math.max(Math.min(30_000, 1000 * 2 ** attempt), (error.resumeAt?.getTime() ?? 0) - now()),
          `Jules did not confirm a new session (${clause(error.message)}); looking it up by its title before asking again`,
        );
        const found = await findByTitle(client, request.title, waitsOnly(call));
        if (found !== undefined) return found;
        if (now() - unconfirmedSince >= client.outageMs)
          throw new JulesError(
            'unavailable',
            sentences(
              `Jules has not created a session since ${new Date(unconfirmedSince).toISOString()} (${duration(client.outageMs)}; last error: ${clause(error.message)})`,
              'The state is saved; run maker resume when Jules is back: it re-attaches every session',
            ),
          );
        continue;
      }
      if (error.kind === 'bad-request') {
        const branch = namesBranch(error, request.startingBranch);
        branchSince ??= now();
        if (branch && now() - branchSince < (deps.branchWaitMs ?? 120_000)) {
          await wait(
            deps,
            call,
            Math.min(15_000, 1000 * 2 ** branchTries++),
            `Jules does not see branch ${request.startingBranch} yet (it was pushed a moment ago); asking again`,
          );
          continue;
        }
        throw refused(error, branch ? request.startingBranch : undefined);
      }
      if (error.kind === 'daily-limit') throw dailyLimit(error, now());
      if (error.kind !== 'concurrent-limit') throw error;
      const mine = deps.running.size;
      if (mine === 0) {
        limitedSince ??= now();
        if (now() - limitedSince >= client.outageMs)
          throw new JulesError(
            'unavailable',
            sentences(
              `Jules' concurrent task limit has been reached for ${duration(client.outageMs)} while none of this run's sessions is running: sessions started elsewhere hold it (${clause(error.message)})`,
              'The state is saved; run maker resume once they have finished',
            ),
          );
      } else limitedSince = undefined;
      const until = new Date(now() + deps.recheckMs);
      const end = call.onWait?.({
        service: 'jules',
        reason:
          mine > 0
            ? `Jules' concurrent task limit is reached: waiting for one of this run's ${mine} running session${mine === 1 ? '' : 's'} to finish, then starting the next`
            : "Jules' concurrent task limit is reached by sessions started elsewhere: looking again",
        until,
      });
      try {
        await deps.running.oneEnds(deps.recheckMs, deps.sleep, call.signal);
      } finally {
        end?.();
      }
    }
  }
}

/** The session a slot created, found by its title; undefined when there is none. */
export async function findByTitle(
  client: JulesClient,
  title: string,
  call: CallOptions,
): Promise<string | undefined> {
  let pageToken: string | undefined;
  do {
    const page = await client.listSessions(
      { pageSize: 100, ...(pageToken === undefined ? {} : { pageToken }) },
      call,
    );
    const found = page.items.find((s) => s.title === title);
    if (found !== undefined) return found.id;
    pageToken = page.nextPageToken;
  } while (pageToken !== undefined);
  return undefined;
}

/** The call without its request-only signal: lookups are cancelled like waits. */
function waitsOnly(call: CallOptions): CallOptions {
  return { signal: call.signal, onWait: call.onWait };
}

async function wait(deps: CreateDeps, call: CallOptions, ms: number, reason: string) {
  const end = call.onWait?.({ service: 'jules', reason, until: new Date(deps.now() + ms) });
  try {
    await deps.sleep(ms, call.signal);
  } finally {
    end?.();
  }
}

/** Whether a refused create is about its starting branch (Jules cannot see it). */
function namesBranch(error: JulesError, branch: string): boolean {
  return (
    /starting_?branch/i.test(error.fieldViolations.map((v) => v.field).join(' ')) ||
    error.message.includes(branch)
  );
}

/** A create Jules refused: the run stops, saying why and what to fix (`branch`: the one it cannot see). */
function refused(error: JulesError, branch: string | undefined): JulesError {
  const fields = error.fieldViolations.map((v) => `${v.field}: ${v.description}`).join('; ');
  return new JulesError(
    'refused',
    sentences(
      `Jules refused to start a session: ${clause(error.message)}${fields === '' ? '' : ` (${fields})`}`,
      branch === undefined
        ? 'This says nothing about the candidates, and every new session would be refused the same'
        : `Check that branch ${branch} reached the repository on GitHub and that the Jules GitHub app can see the repository`,
      'The state is saved; fix the cause, then run maker resume',
    ),
    {
      ...(error.status === undefined ? {} : { status: error.status }),
      fieldViolations: error.fieldViolations,
    },
  );
}

function dailyLimit(error: JulesError, now: number): SessionBudgetError {
  const said = /failed with 429: (.*)$/s.exec(error.message)?.[1]?.trim() ?? error.message;
  const at = error.resumeAt;
  return new SessionBudgetError(
    sentences(
      `Jules refused a new session: the daily task limit of your Jules plan is reached (Jules said: "${said}")`,
      at === undefined
        ? `Jules did not say when it frees up: at the latest 24 hours after the first of the last 24 hours' sessions (by ${new Date(now + 24 * 3_600_000).toISOString()})`
        : `It frees up at ${at.toISOString()}`,
      'The state is saved; run maker resume then: it re-attaches every session already started, and nothing is bought twice',
    ),
    at ?? new Date(now + 24 * 3_600_000),
  );
}
