import { describe, expect, it } from 'vitest';
import { timeline, type TracedRequest } from '../../src/surfaces/bench/jules-timeline.js';

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
});
