import { describe, expect, it } from 'vitest';
import {
  MODEL_OUTPUT_CAP,
  raisedThinking,
  samplingFor,
  samplingProblem,
  samplingTable,
} from '../../src/core/sampling.js';

describe('the per-model sampling table', () => {
  it('keeps Gemini 3 and 2.5 at temperature 1.0 with every sample alike, thinking by role', () => {
    const flash = samplingTable('gemini-2.5-flash');
    expect(Object.values(flash).every((s) => s.temperature === 1)).toBe(true);
    expect(flash.worker).toEqual({
      temperature: 1,
      thinkingBudget: 6144,
      answerTokens: 16_384,
      maxOutputTokens: 16_384 + 6144,
    });
    expect(flash.review.thinkingBudget).toBe(1024);
    expect(samplingFor('gemini-2.5-flash-lite', 'minimal').thinkingBudget).toBe(512);
    expect(samplingFor('gemini-2.5-pro', 'split').thinkingBudget).toBe(8192);
    const pro3 = samplingFor('gemini-3-pro-preview', 'worker');
    expect(pro3).toMatchObject({ temperature: 1, thinkingLevel: 'high' });
    expect(pro3.thinkingBudget).toBeUndefined();
    expect(pro3.maxOutputTokens).toBeGreaterThan(pro3.answerTokens);
    // A model the table does not know: temperature 1, no thinking setting sent.
    expect(samplingFor('gemini-2.0-flash', 'ballot')).toEqual({
      temperature: 1,
      answerTokens: 4096,
      maxOutputTokens: 4096 + 8192,
    });
  });

  it('applies overrides to every role, and refuses ones the model does not take', () => {
    const table = samplingTable('gemini-2.5-flash', { temperature: 0.4, thinkingBudget: 0 });
    expect(table.split).toMatchObject({
      temperature: 0.4,
      thinkingBudget: 0,
      maxOutputTokens: 4096,
    });
    expect(samplingProblem('gemini-2.5-flash', { thinkingBudget: 0 })).toBeUndefined();
    expect(samplingProblem('gemini-2.5-pro', { thinkingBudget: 0 })).toMatch(/128 to 32768/);
    expect(samplingProblem('gemini-3-pro-preview', { thinkingBudget: 100 })).toMatch(
      /--thinking-level instead/,
    );
    expect(samplingProblem('gemini-3-pro-preview', { thinkingLevel: 'medium' })).toMatch(
      /low or high/,
    );
    expect(samplingProblem('gemini-3-flash-preview', { thinkingLevel: 'medium' })).toBeUndefined();
    expect(samplingProblem('gemini-2.5-flash', { thinkingLevel: 'low' })).toMatch(
      /--thinking-budget instead/,
    );
    expect(samplingProblem('gemini-2.5-flash', { temperature: 3 })).toMatch(/between 0 and 2/);
  });
});

describe('the one retry of an answer its thinking left empty', () => {
  it('doubles the budget within the model’s range, or the room of a level or automatic thinking', () => {
    const worker = samplingFor('gemini-2.5-flash', 'worker');
    const request = { maxOutputTokens: worker.answerTokens, thinkingBudget: worker.thinkingBudget };
    expect(raisedThinking('gemini-2.5-flash', request)).toEqual({
      thinkingBudget: 12_288,
      room: 12_288,
    });
    // Flash's budget stops at 24,576; Pro's at 32,768.
    expect(raisedThinking('gemini-2.5-flash', { ...request, thinkingBudget: 20_000 })).toEqual({
      thinkingBudget: 24_576,
      room: 24_576,
    });
    expect(raisedThinking('gemini-2.5-flash', { ...request, thinkingBudget: 24_576 })).toBe(
      undefined,
    );
    expect(raisedThinking('gemini-2.5-flash', { ...request, thinkingBudget: 0 })).toBe(undefined);
    expect(
      raisedThinking('gemini-3-pro-preview', { maxOutputTokens: 4096, thinkingLevel: 'low' }),
    ).toEqual({ thinkingLevel: 'low', room: 16_384 });
    expect(raisedThinking('gemini-2.0-flash', { maxOutputTokens: 4096 })).toEqual({
      room: 16_384,
    });
    expect(raisedThinking('gemini-2.0-flash', {})).toBe(undefined);
    // The answer and the room stay within the model's output cap.
    const high = raisedThinking('gemini-3-pro-preview', {
      maxOutputTokens: 16_384,
      thinkingLevel: 'high',
    });
    expect(high?.room).toBe(MODEL_OUTPUT_CAP - 16_384);
  });
});
