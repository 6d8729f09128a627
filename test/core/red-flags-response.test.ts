import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  abnormalStopRule,
  jsonSchemaParser,
  predicateRule,
  redFlagger,
  tokenCapRule,
  type ModelResponse,
} from '../../src/core/red-flags/index.js';

const split = z.object({ subtasks: z.array(z.object({ title: z.string().min(1) })).min(1) });

describe('red-flag rules', () => {
  it('flags truncation at the cap and over-long answers', () => {
    const rule = tokenCapRule(750);
    expect(rule({ text: 'x', finishReason: 'length', outputTokens: 750 })?.rule).toBe('truncated');
    expect(rule({ text: 'x', finishReason: 'stop', outputTokens: 751 })?.rule).toBe('token-cap');
    expect(rule({ text: 'x', finishReason: 'stop', outputTokens: 750 })).toBeUndefined();
    expect(rule({ text: 'x' })).toBeUndefined();
    expect(abnormalStopRule({ text: '', finishReason: 'safety' })?.rule).toBe('abnormal-stop');
  });

  it('parses JSON (bare or in one ```json fence) and validates it with zod', () => {
    const parse = jsonSchemaParser(split);
    expect(parse({ text: '{"subtasks":[{"title":"a"}]}' })).toEqual({
      ok: true,
      value: { subtasks: [{ title: 'a' }] },
    });
    expect(parse({ text: '```json\n{"subtasks":[{"title":"a"}]}\n```' }).ok).toBe(true);
    const malformed = parse({ text: '{"subtasks": [' });
    expect(malformed.ok === false && malformed.flag.rule).toBe('parse');
    const wrongShape = parse({ text: '{"subtasks":[{"title":""}]}' });
    expect(wrongShape.ok === false && wrongShape.flag.rule).toBe('schema');
    expect(wrongShape.ok === false && wrongShape.flag.message).toContain('subtasks.0.title');
    // Prose around JSON is not repaired away.
    expect(parse({ text: 'Here you go: {"subtasks":[{"title":"a"}]}' }).ok).toBe(false);
  });

  it('collects every flag rather than stopping at the first, and passes clean responses', () => {
    const check = redFlagger<ModelResponse, z.infer<typeof split>>(jsonSchemaParser(split), [
      tokenCapRule(10),
      predicateRule('refusal', 'The model refused.', (r) => /I can(?:no|')t help/i.test(r.text)),
    ]);
    const flagged = check({
      text: "I can't help with that",
      finishReason: 'stop',
      outputTokens: 20,
    });
    expect(flagged.ok === false && flagged.flags.map((f) => f.rule)).toEqual([
      'token-cap',
      'refusal',
      'parse',
    ]);
    expect(check({ text: '{"subtasks":[{"title":"ok"}]}', outputTokens: 5 })).toEqual({
      ok: true,
      value: { subtasks: [{ title: 'ok' }] },
    });
  });
});
