import { AbortedError } from '../../core/errors.js';
import { clause, sentences } from '../../core/text.js';
import type { CallOptions, CreateSessionRequest, JulesClient } from './client.js';
import { JulesError, SessionBudgetError, duration } from './errors.js';
import { findSession, sessionMatch, type SessionMatch } from './match.js';
import type { LeftSessions, RunningSessions } from './running.js';

export interface CreateDeps {
  readonly client: JulesClient;
  readonly running: RunningSessions;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now: () => number;
  /** Longest wait between two looks at a plan limit (default 60 s). */
  readonly recheckMs: number;
  /** How long a create of unknown outcome is looked for (default: the client's request timeout + 60 s). */
  readonly lookupWindowMs?: number;
  /** How long a starting branch Jules does not see yet is asked about again (default 2 min). */
  readonly branchWaitMs?: number;
}

/** What a create came to: the session, and how many create requests were sent for it. */
export interface Created {
  readonly id: string;
  /** More than one: an earlier create whose outcome was unknown may still turn up (an orphan). */
  readonly requests: number;
}

/** How long past the client's request timeout a create of unknown outcome is looked for. */
const LOOKUP_MARGIN_MS = 60_000;

/**
 * Creates the slot's session exactly once and returns its id. A create whose outcome is unknown
 * (no reply, a 5xx, a timeout) is followed by lookups of what identifies the session (title,
 * source, starting branch and prompt, never its time: see {@link SessionMatch}), with backoff,
 * over a window covering the client's request timeout plus a margin, as a create may reach Jules
 * late and its list may lag, before anything is created again; the window ends early where the
 * outage tolerance ends, counted from the first create of unknown outcome, and the run stops then
 * (a resume finds a session that turns up late by the same lookup). A concurrent-task limit
 * waits until one of this worker's sessions ends: one it follows, else one it stopped following
 * that Jules still runs (looked at again each time, and counted for a bounded time: see
 * {@link RunningSessions}); when there is none, up to the outage tolerance, then the run stops;
 * a daily task limit stops the run at once, saying when it frees up. A create Jules refuses (400)
 * says nothing about the candidate, and asking again would be refused the same: it stops the run
 * (`refused`), but for a starting branch Jules does not see yet (pushed a moment ago), asked about
 * again for a while first.
 */
export async function createSessionOnce(
  deps: CreateDeps,
  request: CreateSessionRequest,
  call: CallOptions,
): Promise<Created> {
  const { client, now } = deps;
  const match = sessionMatch(request);
  /** Since the first create of unknown outcome: when it was sent, and the time waited since. */
  let unconfirmed: { since: number; waited: number } | undefined;
  let limitedSince: number | undefined;
  let branchSince: number | undefined;
  let branchTries = 0;
  let requests = 0;
  for (;;) {
    const sentAt = now();
    try {
      requests++;
      return { id: (await client.createSession(request, call)).id, requests };
    } catch (error) {
      if (!(error instanceof JulesError)) throw error;
      if (error.outcomeUnknown) {
        const streak = (unconfirmed ??= { since: sentAt, waited: 0 });
        // Counted on the clock and in time waited, whichever says more (a sleep may not move `now`).
        const spent = () => Math.max(now() - streak.since, streak.waited);
        const found = await lookUp(deps, call, match, sentAt, error, {
          left: () => client.outageMs - spent(),
          waited: (ms) => void (streak.waited += ms),
        });
        if (found !== undefined) return { id: found, requests };
        if (spent() >= client.outageMs)
          throw new JulesError(
            'unavailable',
            sentences(
              `Jules has not created a session for ${duration(spent())}, since ${new Date(streak.since).toISOString()} (the outage limit is ${duration(client.outageMs)}; last error: ${clause(error.message)})`,
              'The state is saved; run maker resume when Jules is back: it re-attaches every session, and finds one this create made if Jules made it late',
            ),
            { isRetryable: true },
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
      // None followed: the sessions this run stopped following may hold the limit still.
      const left: LeftSessions =
        mine > 0
          ? { counted: [], expired: [], ended: 0 }
          : await deps.running.left(client, waitsOnly(call));
      // One of them was seen ended just now: its slot is free.
      if (left.ended > 0) continue;
      if (mine > 0 || left.counted.length > 0) limitedSince = undefined;
      else {
        limitedSince ??= now();
        if (now() - limitedSince >= client.outageMs)
          throw limitedElsewhere(error, client.outageMs, left.expired);
      }
      const until = new Date(now() + deps.recheckMs);
      const end = call.onWait?.({ service: 'jules', reason: limitWait(mine, left), until });
      try {
        await deps.running.oneEnds(deps.recheckMs, deps.sleep, call.signal);
      } finally {
        end?.();
      }
    }
  }
}

/** Why a create waits at the concurrent-task limit: whose sessions hold it, as far as this run knows. */
function limitWait(mine: number, left: LeftSessions): string {
  if (mine > 0)
    return `Jules' concurrent task limit is reached: waiting for one of this run's ${mine} running session${mine === 1 ? '' : 's'} to finish, then starting the next`;
  const [one, ...more] = left.counted;
  if (one !== undefined)
    return more.length === 0
      ? `Jules' concurrent task limit is reached: this run's earlier session ${one} still runs at Jules, though the run no longer follows it; looking at it again, then starting the next`
      : `Jules' concurrent task limit is reached: this run's earlier sessions ${left.counted.join(', ')} still run at Jules, though the run no longer follows them; looking at them again, then starting the next`;
  if (left.expired.length > 0)
    return `Jules' concurrent task limit is reached by this run's earlier session${left.expired.length === 1 ? '' : 's'} ${left.expired.join(', ')}, which it stopped following and Jules still runs, or by sessions started elsewhere: looking again`;
  return "Jules' concurrent task limit is reached by sessions started elsewhere: looking again";
}

/**
 * The run stops: the limit held for `ms` with none of this run's sessions followed. Sessions it
 * stopped following that Jules still runs past their bound (`expired`) are named: they may be what
 * holds it.
 */
function limitedElsewhere(error: JulesError, ms: number, expired: readonly string[]): JulesError {
  const holders =
    expired.length === 0
      ? 'sessions started elsewhere hold it'
      : `this run's earlier session${expired.length === 1 ? '' : 's'} ${expired.join(', ')}, which it stopped following and Jules still runs, or sessions started elsewhere hold it`;
  return new JulesError(
    'unavailable',
    sentences(
      `Jules' concurrent task limit has been reached for ${duration(ms)} while none of this run's sessions is running: ${holders} (${clause(error.message)})`,
      'The state is saved; run maker resume once they have finished',
    ),
  );
}

/**
 * Looks for the session a create of unknown outcome (sent at `sentAt`) may have made, with backoff
 * (at least as long as Jules asked, by a Retry-After), until the window (the request timeout plus a
 * margin, counted both on the clock and in time waited) has passed, or the outage tolerance
 * (`outage.left()`) is spent: no wait goes past either. Undefined when it never shows.
 */
async function lookUp(
  deps: CreateDeps,
  call: CallOptions,
  match: SessionMatch,
  sentAt: number,
  error: JulesError,
  outage: { left: () => number; waited: (ms: number) => void },
): Promise<string | undefined> {
  const { client, now } = deps;
  const windowMs = deps.lookupWindowMs ?? client.requestTimeoutMs + LOOKUP_MARGIN_MS;
  let waited = 0;
  for (let look = 0; ; look++) {
    const wanted = Math.max(
      Math.min(15_000, 1000 * 2 ** look),
      // Whole seconds, as Retry-After says them: the ms since the answer never cut it short.
      look === 0 ? Math.ceil(((error.resumeAt?.getTime() ?? 0) - now()) / 1000) * 1000 : 0,
    );
    const ms = Math.max(0, Math.min(wanted, windowMs - waited, outage.left()));
    await wait(
      deps,
      call,
      ms,
      `Jules did not confirm a new session (${clause(error.message)}); looking it up before asking again`,
    );
    waited += ms;
    outage.waited(ms);
    const found = await findSession(client, match, waitsOnly(call));
    if (found !== undefined) return found;
    if (waited >= windowMs || now() - sentAt >= windowMs || outage.left() <= 0) return undefined;
  }
}

/** The call without its request-only signal: lookups are cancelled like waits. */
function waitsOnly(call: CallOptions): CallOptions {
  return { signal: call.signal, onWait: call.onWait };
}

async function wait(deps: CreateDeps, call: CallOptions, ms: number, reason: string) {
  if (ms <= 0) {
    if (call.signal?.aborted === true) throw new AbortedError(call.signal.reason);
    return;
  }
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
