import { afterEach, describe, expect, it } from 'vitest';
import { GeminiModel } from '../../src/adapters/gemini/gemini-model.js';
import { ApiCallError } from '../../src/core/errors.js';
import { startFakeGemini, type FakeGemini } from '../../src/testing/fake-gemini.js';

const KEY = ['AIza', 'Q'.repeat(35)].join('');
let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('a spent daily quota', () => {
  it('a 429 whose reason is a per-day quota stops at once (no retry), with the resume hint', async () => {
    fake = await startFakeGemini(() => ({
      status: 429,
      message:
        'Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 250, quotaId: GenerateRequestsPerDayPerProjectPerModel-FreeTier',
    }));
    const model = new GeminiModel({
      model: 'gemini-2.5-flash',
      apiKey: KEY,
      baseUrl: fake.baseUrl,
      attempts: 5,
      initialRetryDelaySeconds: 0.01,
    });
    const failed = model.generate({ prompt: 'x', temperature: 0 });
    await expect(failed).rejects.toBeInstanceOf(ApiCallError);
    await expect(failed).rejects.toMatchObject({ status: 429, isRetryable: false });
    await expect(failed).rejects.toThrow(/daily request quota is spent[\s\S]*maker resume/);
    await expect(failed).rejects.not.toThrow(KEY);
    expect(fake.requests).toHaveLength(1);
  });

  it('a per-minute 429 is still retried', async () => {
    fake = await startFakeGemini((_r, index) =>
      index === 0
        ? { status: 429, message: 'Resource has been exhausted (per minute).' }
        : { text: 'ok' },
    );
    const model = new GeminiModel({
      model: 'gemini-2.5-flash',
      apiKey: KEY,
      baseUrl: fake.baseUrl,
      attempts: 3,
      initialRetryDelaySeconds: 0.01,
    });
    expect((await model.generate({ prompt: 'x', temperature: 0 })).text).toBe('ok');
    expect(fake.requests).toHaveLength(2);
  });
});
