import { afterEach, describe, expect, it } from 'vitest';
import { GeminiModel } from '../../src/adapters/gemini/gemini-model.js';
import { RetryingModel } from '../../src/adapters/gemini/retrying-model.js';
import { ApiCallError, ConfigError } from '../../src/core/errors.js';
import {
  startFakeGemini,
  type FakeGemini,
  type FakeGeminiResponder,
} from '../../src/offline/fake-gemini.js';

/** Shaped like a real key, so the redaction under test has something to catch; built at run time. */
const KEY = ['AIza', 'F'.repeat(35)].join('');
let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function model(respond: FakeGeminiResponder): Promise<GeminiModel> {
  fake = await startFakeGemini(respond);
  return new GeminiModel({ model: 'gemini-2.5-flash', apiKey: KEY, baseUrl: fake.baseUrl });
}

/** The model as runs use it: with its retries ({@link RetryingModel}), backoffs shortened. */
async function retrying(respond: FakeGeminiResponder, attempts = 3): Promise<RetryingModel> {
  return new RetryingModel(await model(respond), {
    service: 'gemini',
    policy: { attempts, firstBackoffMs: 10 },
  });
}

describe('GeminiModel over the real @google/genai client', () => {
  it('sends the prompt, system instruction, temperature, token cap and key as the API expects', async () => {
    const m = await model(() => ({ text: 'hello', outputTokens: 7, inputTokens: 11 }));
    const result = await m.generate({
      system: 'be brief',
      prompt: 'say hi',
      temperature: 0.1,
      maxOutputTokens: 750,
    });
    expect(result).toEqual({
      text: 'hello',
      finishReason: 'stop',
      outputTokens: 7,
      inputTokens: 11,
    });
    expect(fake?.requests).toHaveLength(1);
    expect(fake?.requests[0]).toMatchObject({
      model: 'gemini-2.5-flash',
      apiKey: KEY,
      system: 'be brief',
      prompt: 'say hi',
      temperature: 0.1,
      maxOutputTokens: 750 + 8192,
    });
  });

  it("caps the answer, not the model's thinking: a long think still leaves the answer its whole cap", async () => {
    // Gemini counts thinking against maxOutputTokens (the fake does too); 6,000 tokens of it
    // used to spend a 4,096-token cap before the answer began.
    const answer = JSON.stringify({ minimal: true, reason: 'x'.repeat(3000) });
    const m = await model(() => ({ text: answer, thoughtTokens: 6000 }));
    const result = await m.generate({ prompt: 'x', temperature: 0, maxOutputTokens: 4096 });
    expect(result).toMatchObject({ text: answer, finishReason: 'stop', thoughtTokens: 6000 });
    // An explicit budget is the room left for thinking; a long answer is still cut at its cap.
    const budgeted = await model(() => ({ text: 'y'.repeat(4 * 900), thoughtTokens: 6000 }));
    const cut = await budgeted.generate({
      prompt: 'x',
      temperature: 0,
      maxOutputTokens: 750,
      thinkingBudget: 200,
    });
    expect(fake?.requests[0]?.maxOutputTokens).toBe(950);
    expect(cut).toMatchObject({ finishReason: 'length', outputTokens: 750, thoughtTokens: 200 });
  });

  it('passes a thinking budget as thinkingConfig', async () => {
    const m = await model(() => ({ text: 'ok' }));
    await m.generate({ prompt: 'x', temperature: 0, thinkingBudget: 0 });
    expect(fake?.requests[0]?.body).toMatchObject({
      generationConfig: { thinkingConfig: { thinkingBudget: 0 } },
    });
  });

  it('asks for JSON when the request wants it', async () => {
    const m = await model(() => ({ text: '{}' }));
    await m.generate({
      prompt: 'json please',
      temperature: 0,
      json: { schema: { type: 'object' } },
    });
    expect(fake?.requests[0]?.responseMimeType).toBe('application/json');
  });

  it('maps MAX_TOKENS to a truncation the red flags understand', async () => {
    const m = await model(() => ({
      text: 'move = [1, 0',
      finishReason: 'MAX_TOKENS',
      outputTokens: 750,
    }));
    expect(await m.generate({ prompt: 'x', temperature: 0 })).toMatchObject({
      finishReason: 'length',
      outputTokens: 750,
    });
  });

  it('asks once more with twice the room when a level’s thinking left the answer empty', async () => {
    fake = await startFakeGemini((_request, index) =>
      index === 0
        ? { text: '', finishReason: 'MAX_TOKENS', thoughtTokens: 8000, inputTokens: 10 }
        : { text: '{"ok": true}', outputTokens: 4, inputTokens: 10, thoughtTokens: 9000 },
    );
    const m = new GeminiModel({
      model: 'gemini-3-pro-preview',
      apiKey: KEY,
      baseUrl: fake.baseUrl,
    });
    const result = await m.generate({
      prompt: 'x',
      temperature: 1,
      maxOutputTokens: 4096,
      thinkingLevel: 'low',
    });
    expect(result).toMatchObject({ text: '{"ok": true}', finishReason: 'stop', requests: 2 });
    // Both requests billed: the empty one's thinking and prompt too.
    expect(result.inputTokens).toBe(20);
    expect(result.thoughtTokens).toBe(8000 + 9000);
    const sent = fake.requests.map((r) => ({
      cap: r.maxOutputTokens,
      level: (r.body as { generationConfig: { thinkingConfig?: { thinkingLevel?: string } } })
        .generationConfig.thinkingConfig?.thinkingLevel,
    }));
    expect(sent).toEqual([
      { cap: 4096 + 8192, level: 'LOW' },
      { cap: 4096 + 16_384, level: 'LOW' },
    ]);
  });

  it('reports a prompt Gemini blocks (no candidate, a block reason) as a safety stop', async () => {
    const m = await model(() => ({ blocked: 'PROHIBITED_CONTENT' }));
    expect(await m.generate({ prompt: 'x', temperature: 0 })).toMatchObject({
      text: '',
      finishReason: 'safety',
    });
  });

  it('reports the hidden thinking tokens a model bills, apart from the answer', async () => {
    const m = await model(() => ({
      text: '{}',
      outputTokens: 3,
      inputTokens: 5,
      thoughtTokens: 900,
    }));
    expect(await m.generate({ prompt: 'x', temperature: 0 })).toEqual({
      text: '{}',
      finishReason: 'stop',
      outputTokens: 3,
      inputTokens: 5,
      thoughtTokens: 900,
    });
  });

  it('retries 503 with backoff, then succeeds', async () => {
    const m = await retrying((_request, index) =>
      index < 2 ? { status: 503, message: 'busy' } : { text: 'ok' },
    );
    expect((await m.generate({ prompt: 'x', temperature: 0 })).text).toBe('ok');
    expect(fake?.requests).toHaveLength(3);
  });

  it('retries a call whose connection was cut with no answer, then succeeds', async () => {
    const m = await retrying((_request, index) => (index < 2 ? { drop: true } : { text: 'ok' }));
    expect((await m.generate({ prompt: 'x', temperature: 0 })).text).toBe('ok');
    expect(fake?.requests).toHaveLength(3);
  });

  it('fails a bad request at once with a typed error that never contains the key', async () => {
    const m = await model(() => ({ status: 400, message: `API key ${KEY} rejected: bad field` }));
    const error = await m.generate({ prompt: 'x', temperature: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiCallError);
    expect(error).toMatchObject({ status: 400, isRetryable: false, service: 'gemini' });
    expect(String((error as Error).message)).not.toContain(KEY);
    expect(fake?.requests).toHaveLength(1);
  });

  it('says what to check on an authentication failure and after exhausting retries', async () => {
    const auth = await model(() => ({ status: 403, message: 'denied' }));
    await expect(auth.generate({ prompt: 'x', temperature: 0 })).rejects.toThrow(/GEMINI_API_KEY/);
    await fake?.close();
    const busy = await retrying(() => ({ status: 500, message: 'down' }), 2);
    const gaveUp = busy.generate({ prompt: 'x', temperature: 0 });
    await expect(gaveUp).rejects.toMatchObject({ status: 500, isRetryable: false });
    await expect(gaveUp).rejects.toThrow(/tried 2 times[\s\S]*maker resume/);
    expect(fake?.requests).toHaveLength(2);
  });

  it('names why a call could not reach the API, not only "fetch failed"', async () => {
    const unreachable = await model(() => ({ text: 'never' }));
    await fake?.close();
    fake = undefined;
    const error: unknown = await unreachable
      .generate({ prompt: 'x', temperature: 0 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiCallError);
    expect(String((error as Error).message)).toMatch(/ECONNREFUSED/);
    expect(String((error as Error).message)).toMatch(/network|GOOGLE_GEMINI_BASE_URL/);
  });

  it('refuses to start without a key', () => {
    expect(() => new GeminiModel({ model: 'gemini-2.5-flash', apiKey: '' })).toThrow(ConfigError);
  });
});
