import type { JulesAnswer, JulesTransport } from '../../adapters/jules/http.js';

/**
 * One request the worker sent: what, the session it concerns (a create's from its answer), and when
 * it was sent and answered (ms, `performance.now`).
 */
export interface TracedRequest {
  readonly method: string;
  readonly path: string;
  readonly session: string | undefined;
  readonly sent: number;
  readonly answered: number;
}

/** A request as the tracer keeps it while the trial runs: read into a {@link TracedRequest} after. */
export interface RawTrace {
  readonly method: string;
  readonly url: string;
  readonly sent: number;
  readonly answered: number;
  readonly answer: JulesAnswer;
}

/**
 * `transport`, recording every request it carries into `log`. It runs in the measured process, so
 * it only keeps what it saw (two clock reads and a push per request): paths and sessions are read
 * afterwards, by {@link traced}.
 */
export function tracing(transport: JulesTransport, log: RawTrace[]): JulesTransport {
  return (url, init) => {
    const sent = performance.now();
    return transport(url, init).then((answer) => {
      log.push({ method: init.method, url, sent, answered: performance.now(), answer });
      return answer;
    });
  };
}

/** The requests of a trial: each one's path without the query, and the session it concerns. */
export function traced(log: readonly RawTrace[]): TracedRequest[] {
  return log.map(({ method, url, sent, answered, answer }) => {
    const start = url.indexOf('/', url.indexOf('//') + 2);
    const end = url.indexOf('?', start);
    const path = start < 0 ? '/' : url.slice(start, end < 0 ? undefined : end);
    const session =
      /\/sessions\/(\d+)$/.exec(path)?.[1] ??
      (method === 'POST' && path.endsWith('/sessions') && answer.status === 200
        ? (JSON.parse(answer.text) as { id?: string }).id
        : undefined);
    return { method, path, session, sent, answered };
  });
}

/**
 * Where one trial's time went, from the worker's side of the wire (ms): how long creates and polls
 * took to be answered (median and max), when the last create of the first wave (the first `cap`)
 * was answered, and each session's lag: from its create's answer plus `workMs` (the earliest it can
 * be finished) to the answer of the poll that saw it finished; and each handoff: from a session
 * seen finished to the create its freed slot sends next.
 */
export function timeline(
  log: readonly TracedRequest[],
  options: { readonly started: number; readonly workMs: number; readonly concurrency: number },
) {
  const creates = log.filter((r) => r.method === 'POST' && r.path.endsWith('/sessions'));
  const polls = log.filter((r) => r.method === 'GET' && /\/sessions\/[^/]+$/.test(r.path));
  const bySending = [...creates].sort((a, b) => a.sent - b.sent);
  const firstWave = bySending.slice(0, options.concurrency);
  // A session's last poll is the one that saw it finished.
  const seen = new Map<string, number>();
  for (const poll of polls)
    if (poll.session !== undefined)
      seen.set(poll.session, Math.max(seen.get(poll.session) ?? 0, poll.answered));
  const lags = creates.flatMap((c) => {
    const done = c.session === undefined ? undefined : seen.get(c.session);
    return done === undefined ? [] : [done - (c.answered + options.workMs)];
  });
  // A slot freed by a session seen finished starts the next: the n-th create after the first
  // wave follows the n-th session seen finished.
  const finished = [...seen.values()].sort((a, b) => a - b);
  const handoffs = bySending.slice(options.concurrency).flatMap((c, n) => {
    const freed = finished[n];
    return freed === undefined ? [] : [c.sent - freed];
  });
  return {
    createMs: spread(creates.map((c) => c.answered - c.sent)),
    pollMs: spread(polls.map((p) => p.answered - p.sent)),
    firstWaveCreatedMs: round(Math.max(0, ...firstWave.map((c) => c.answered)) - options.started),
    lagMs: spread(lags),
    handoffMs: spread(handoffs),
  };
}

function spread(values: readonly number[]): { median: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    median: round(sorted[Math.floor(sorted.length / 2)] ?? 0),
    max: round(sorted.at(-1) ?? 0),
  };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
