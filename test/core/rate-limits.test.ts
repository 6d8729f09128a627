import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MODEL_WAITS,
  modelWaitsFrom,
  requestDeadlineMs,
} from '../../src/core/deadlines.js';
import {
  parseDuration,
  readQuotaAnswer,
  resetWords,
  waitWords,
} from '../../src/core/rate-limits.js';
import { errorEnvelope } from '../../src/offline/google-http.js';
import {
  apiDailyQuota,
  apiMinuteQuota,
  codeAssistDailyQuota,
  codeAssistMinuteQuota,
  vertexMinuteQuota,
} from '../../src/offline/quota-replies.js';
import type { FakeGeminiReply } from '../../src/offline/fake-gemini-shapes.js';

/** The body a fake's error reply is sent with. */
function body(reply: FakeGeminiReply): string {
  if (!('status' in reply)) throw new Error('not an error reply');
  return JSON.stringify(errorEnvelope(reply.status, reply.message, [], reply.details ?? []));
}

describe('readQuotaAnswer', () => {
  it('reads each service’s 429 body: a daily limit with its reset, a per-minute one with its wait', () => {
    expect(readQuotaAnswer({ status: 429, body: body(apiDailyQuota(61_200)) })).toMatchObject({
      kind: 'daily',
      resetMs: 61_200_000,
    });
    expect(readQuotaAnswer({ status: 429, body: body(apiMinuteQuota(27)) })).toMatchObject({
      kind: 'per-minute',
      retryMs: 27_000,
    });
    expect(
      readQuotaAnswer({ status: 429, body: body(codeAssistDailyQuota(63_125)) }),
    ).toMatchObject({ kind: 'daily', resetMs: 63_125_250 });
    expect(readQuotaAnswer({ status: 429, body: body(codeAssistMinuteQuota(20)) })).toMatchObject({
      kind: 'per-minute',
      retryMs: 20_000,
    });
    expect(readQuotaAnswer({ status: 429, body: body(vertexMinuteQuota()) })).toMatchObject({
      kind: 'per-minute',
      retryMs: 60_000,
    });
    // Code Assist sometimes wraps its envelope in an array.
    expect(readQuotaAnswer({ body: `[${body(codeAssistDailyQuota(3600 * 17))}]` })).toMatchObject({
      kind: 'daily',
      resetMs: 3600 * 17 * 1000 + 250,
    });
  });

  it('reads the words Gemini CLI passes on (ACP errors, its JSON and stderr)', () => {
    expect(
      readQuotaAnswer({ status: 429, text: 'Rate limit exceeded. Try again later.' }),
    ).toMatchObject({ kind: 'per-minute', retryMs: 60_000 });
    expect(
      readQuotaAnswer({
        text: '[API Error: You have exhausted your daily quota on this model.]',
      }),
    ).toEqual({
      kind: 'daily',
      resetMs: undefined,
      said: 'You have exhausted your daily quota on this model.',
    });
    expect(
      readQuotaAnswer({
        text: 'You have exhausted your capacity on this model. Your quota will reset after 17h32m5s.',
      }),
    ).toMatchObject({ kind: 'daily', resetMs: (17 * 3600 + 32 * 60 + 5) * 1000 });
    // Its own retry log: a short capacity wait is a rolling window.
    expect(
      readQuotaAnswer({
        text: 'Attempt 1 failed: You have exhausted your capacity on this model. Your quota will reset after 5s.. Retrying after 6173ms...',
      }),
    ).toMatchObject({ kind: 'per-minute', retryMs: 5000 });
    expect(
      readQuotaAnswer({
        status: 429,
        text: 'Quota exceeded for metric: x, limit: 0, model: gemini-2.5-pro',
      }),
    ).toMatchObject({ kind: 'daily', resetMs: undefined });
  });

  it('a 429 that says nothing is a short wait; words that are not about a quota are not one', () => {
    expect(readQuotaAnswer({ status: 429, text: 'Too Many Requests' })).toMatchObject({
      kind: 'per-minute',
      retryMs: 30_000,
    });
    expect(readQuotaAnswer({ status: 500, text: 'Internal error' })).toBeUndefined();
    expect(readQuotaAnswer({ text: 'the day was long and the minute short' })).toBeUndefined();
  });

  it('parses Google’s durations and says waits and resets in a person’s words', () => {
    expect(parseDuration('27s')).toBe(27_000);
    expect(parseDuration('0.5s')).toBe(500);
    expect(parseDuration('1500ms')).toBe(1500);
    expect(parseDuration('17h32m5.123s')).toBe((17 * 3600 + 32 * 60 + 5.123) * 1000);
    expect(parseDuration('soon')).toBeUndefined();
    expect(waitWords(30_000)).toBe('30 s');
    expect(waitWords(12 * 60_000)).toBe('12 min');
    expect(waitWords(17 * 3600_000)).toBe('17 h');
    expect(waitWords(3 * 3600_000 + 30 * 60_000)).toBe('3 h 30 min');
    expect(resetWords(17 * 3600_000, new Date('2026-11-23T09:00:00Z'))).toBe(
      'resets in 17 h (at 2026-11-24 02:00 UTC)',
    );
    expect(resetWords(undefined, new Date())).toMatch(/within 24 hours/);
  });
});

describe('deadlines', () => {
  it('grow with the request: its prompt and the most it may answer', () => {
    const small = requestDeadlineMs(
      { promptChars: 4000, maxOutputTokens: 1000 },
      DEFAULT_MODEL_WAITS,
    );
    const big = requestDeadlineMs(
      { promptChars: 400_000, maxOutputTokens: 8000, thinkingRoom: 8192 },
      DEFAULT_MODEL_WAITS,
    );
    expect(small).toBe(60_000 + 500 + 50_000);
    expect(big).toBeGreaterThan(small);
    expect(big).toBe(Math.round(60_000 + 50_000 + (16_192 / 20) * 1000));
  });

  it('are set in whole seconds by MAKER_…_S settings; a typo is named', () => {
    const settings: Record<string, string> = {
      MAKER_MODEL_SILENCE_S: '5',
      MAKER_GEMINI_START_S: 'soon',
    };
    const { waits, problems } = modelWaitsFrom((name) => settings[name] ?? '');
    expect(waits.silenceMs).toBe(5000);
    expect(waits.startupMs).toBe(DEFAULT_MODEL_WAITS.startupMs);
    expect(problems).toEqual([
      'MAKER_GEMINI_START_S=soon is not a number of seconds (1 to 86400).',
    ]);
  });
});
