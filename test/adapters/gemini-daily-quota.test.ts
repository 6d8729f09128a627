import { afterEach, describe, expect, it } from 'vitest';
import { GeminiModel } from '../../src/adapters/gemini/gemini-model.js';
import { RetryingModel } from '../../src/adapters/gemini/retrying-model.js';
import type { ModelWaits } from '../../src/core/deadlines.js';
import {
  ModelTransportError,
  QuotaSpentError,
  RateLimitedError,
} from '../../src/core/model-errors.js';
import type { ServiceWait } from '../../src/ports/waits.js';
import {
  startFakeGemini,
  type FakeGemini,
  type FakeGeminiResponder,
} from '../../src/offline/fake-gemini.js';
import {
  apiDailyQuota,
  apiMinuteQuota,
  vertexMinuteQuota,
} from '../../src/offline/quota-replies.js';
import { virtualTime } from '../helpers/virtual-time.js';

const KEY = ['AIza', 'Q'.repeat(35)].join('');
const NOW = new Date('2026-11-23T09:00:00Z');
let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function model(respond: FakeGeminiResponder, waits?: ModelWaits): Promise<GeminiModel> {
  fake = await startFakeGemini(respond);
  return new GeminiModel({
    model: 'gemini-2.5-flash',
    apiKey: KEY,
    baseUrl: fake.baseUrl,
    now: () => NOW,
    ...(waits === undefined ? {} : { waits }),
  });
}

describe('the Gemini API’s 429s, read right', () => {
  it('a daily quota stops at once with the reset the service gave and the resume step, no retry, no key', async () => {
    const m = new RetryingModel(await model(() => apiDailyQuota(61_200)), { service: 'gemini' });
    const failed = m.generate({ prompt: 'x', temperature: 0 });
    await expect(failed).rejects.toBeInstanceOf(QuotaSpentError);
    await expect(failed).rejects.toMatchObject({
      status: 429,
      isRetryable: false,
      resetMs: 61_200_000,
    });
    await expect(failed).rejects.toThrow(
      /daily quota is spent[\s\S]*resets in 17 h \(at 2026-11-24 02:00 UTC\); run `maker resume` then/,
    );
    await expect(failed).rejects.not.toThrow(KEY);
    expect(fake?.requests).toHaveLength(1);
  });

  it('a per-minute limit is waited out ("rate limited, retrying in 27 s"), shown as a wait, then the call goes on', async () => {
    const time = virtualTime(NOW.getTime());
    const waits: ServiceWait[] = [];
    const m = new RetryingModel(
      await model((_r, index) => (index === 0 ? apiMinuteQuota(27) : { text: 'ok' })),
      { service: 'gemini', now: time.now, sleep: time.sleep },
    );
    m.watchWaits((wait) => {
      waits.push(wait);
      return () => undefined;
    });
    expect((await m.generate({ prompt: 'x', temperature: 0 })).text).toBe('ok');
    expect(fake?.requests).toHaveLength(2);
    expect(waits).toEqual([
      {
        service: 'gemini',
        reason: 'rate limited, retrying in 27 s',
        until: new Date(NOW.getTime() + 27_000),
      },
    ]);
    expect(time.now() - NOW.getTime()).toBe(27_000);
  });

  it('per-minute limits that go on too long stop the run (resumable), naming how long', async () => {
    const time = virtualTime(NOW.getTime());
    const m = new RetryingModel(await model(() => apiMinuteQuota(50)), {
      service: 'gemini',
      now: time.now,
      sleep: time.sleep,
      policy: { rateLimitedForMs: 3 * 60_000 },
    });
    const failed = m.generate({ prompt: 'x', temperature: 0 });
    await expect(failed).rejects.toThrow(/rate limited for 3 min in a row[\s\S]*maker resume/);
    await expect(failed).rejects.toMatchObject({ isRetryable: false });
  });

  it('Vertex AI’s per-minute 429 (no details) is a rate limit of a minute', async () => {
    fake = await startFakeGemini(() => vertexMinuteQuota());
    const m = new GeminiModel({ model: 'gemini-2.5-flash', apiKey: KEY, baseUrl: fake.baseUrl });
    const failed = m.generate({ prompt: 'x', temperature: 0 });
    await expect(failed).rejects.toBeInstanceOf(RateLimitedError);
    await expect(failed).rejects.toMatchObject({ retryAfterMs: 60_000 });
  });
});

describe('no silent waits on the API', () => {
  const QUICK: ModelWaits = {
    startupMs: 1000,
    firstByteMs: 400,
    tokensPerSecond: 1e6,
    silenceMs: 300,
  };

  it('an answer that stops midway is ended after the silence limit, as a transport failure', async () => {
    const m = await model(
      () => ({ text: 'a long answer that never ends', stallMidway: true }),
      QUICK,
    );
    const started = Date.now();
    const failed = m.generate({ prompt: 'x', temperature: 0 });
    await expect(failed).rejects.toBeInstanceOf(ModelTransportError);
    await expect(failed).rejects.toThrow(
      /the answer stopped: nothing for 1 s \(MAKER_MODEL_SILENCE_S/,
    );
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a request that gets no answer fails at its deadline (from its size), as a transport failure, and is retried', async () => {
    const m = new RetryingModel(
      await model((_r, index) => (index === 0 ? { hang: true } : { text: 'second time' }), QUICK),
      { service: 'gemini', policy: { firstBackoffMs: 10 }, waits: QUICK },
    );
    const started = Date.now();
    expect((await m.generate({ prompt: 'x', temperature: 0, maxOutputTokens: 100 })).text).toBe(
      'second time',
    );
    expect(Date.now() - started).toBeLessThan(5000);
    expect(fake?.requests).toHaveLength(2);
  });
});
