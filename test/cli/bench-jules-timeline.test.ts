import { describe, expect, it } from 'vitest';
import {
  timeline,
  traced,
  tracing,
  type RawTrace,
  type TracedRequest,
} from '../../src/surfaces/bench/jules-timeline.js';

const r = (
  method: string,
  path: string,
  session: string | undefined,
  sent: number,
  answered: number,
): TracedRequest => ({ method, path, session, sent, answered });

describe('the jules bench timeline', () => {
  it('reads request latencies, the first wave and each session’s lag from the log', () => {
    // Two sessions at cap 1, 100 ms of work: s1 created 0→10, polled at 50 (running) and 110→115
    // (done); s2 created 116→126, polled at 226→241 (done).
    const log = [
      r('POST', '/v1alpha/sessions', '1', 0, 10),
      r('GET', '/v1alpha/sessions/1', '1', 50, 52),
      r('GET', '/v1alpha/sessions/1', '1', 110, 115),
      r('POST', '/v1alpha/sessions', '2', 116, 126),
      r('GET', '/v1alpha/sessions/2', '2', 226, 241),
      r('GET', '/v1alpha/sources/github/a/b', undefined, 0, 1),
    ];
    expect(timeline(log, { started: 0, workMs: 100, concurrency: 1 })).toEqual({
      createMs: { median: 10, max: 10 },
      pollMs: { median: 5, max: 15 },
      firstWaveCreatedMs: 10,
      // s1: seen at 115, could be done at 110; s2: seen at 241, could be done at 226
      lagMs: { median: 15, max: 15 },
      // s2's create left at 116, 1 ms after s1 was seen finished
      handoffMs: { median: 1, max: 1 },
    });
  });

  it('keeps what each request was while the trial runs, and reads paths and sessions after', async () => {
    const answers: Record<string, string> = {
      POST: '{"name":"sessions/42","id":"42","state":"QUEUED"}',
      GET: '{"id":"7"}',
    };
    const log: RawTrace[] = [];
    const transport = tracing(
      (_url, init) =>
        Promise.resolve({ status: 200, text: answers[init.method] ?? '', retryAfter: null }),
      log,
    );
    const init = { headers: {}, body: undefined, signal: undefined, timeoutMs: 1000 };
    await transport('http://127.0.0.1:9/v1alpha/sessions', { ...init, method: 'POST' });
    await transport('http://127.0.0.1:9/v1alpha/sessions/7', { ...init, method: 'GET' });
    await transport('http://127.0.0.1:9/v1alpha/sessions?pageSize=100', { ...init, method: 'GET' });
    expect(log.every((r) => r.answered >= r.sent)).toBe(true);
    expect(traced(log).map(({ method, path, session }) => ({ method, path, session }))).toEqual([
      { method: 'POST', path: '/v1alpha/sessions', session: '42' },
      { method: 'GET', path: '/v1alpha/sessions/7', session: '7' },
      { method: 'GET', path: '/v1alpha/sessions', session: undefined },
    ]);
  });
});
