import { describe, expect, it } from 'vitest';
import { RetryingModel } from '../../src/adapters/gemini/retrying-model.js';
import { DEFAULT_MODEL_WAITS } from '../../src/core/deadlines.js';
import { ApiCallError } from '../../src/core/errors.js';
import { ModelTransportError } from '../../src/core/model-errors.js';
import type { EngineEventInput } from '../../src/engine/events.js';
import { showWait } from '../../src/engine/hitl/waits.js';
import type { GenerateResult, LanguageModel } from '../../src/ports/language-model.js';
import { node, runOf } from '../helpers/runs.js';
import { virtualTime } from '../helpers/virtual-time.js';

/**
 * A model call that fails and is retried says so the moment its try failed, and the person sees
 * it (the engine shows waits of 5 s or more): never seconds of silence before "retrying", never a
 * retry that only the final error mentions.
 */

/**
 * A model whose tries fail as a silent answer does (after the default silence limit), `failures`
 * times, then answer.
 */
function stalling(failures: number, time: ReturnType<typeof virtualTime>): LanguageModel {
  let tries = 0;
  return {
    id: 'gemini-2.5-flash',
    generate: async (): Promise<GenerateResult> => {
      tries += 1;
      await time.sleep(DEFAULT_MODEL_WAITS.silenceMs);
      if (tries <= failures)
        throw new ModelTransportError(
          'gemini-cli',
          `Gemini CLI's model call failed: the answer stopped: nothing for ${DEFAULT_MODEL_WAITS.silenceMs / 1000} s.`,
        );
      return { text: 'ok', finishReason: 'stop' };
    },
  };
}

/** The events the engine emits for the model's waits, each with the virtual time it came at. */
function watched(model: RetryingModel, time: ReturnType<typeof virtualTime>) {
  const run = runOf([node('root')]);
  const events: (EngineEventInput & { t: number })[] = [];
  let id = 0;
  model.watchWaits((wait) =>
    showWait(run, wait, {
      now: time.date,
      id: () => `w${++id}`,
      save: () => undefined,
      emit: (event) => events.push({ ...event, t: time.now() }),
    }),
  );
  return events;
}

describe('a retried model call is said at once', () => {
  it('each retry is shown the moment its try failed ("…nothing for 20 s; retrying in 2 s (try 2 of 3)"), until the next try settles', async () => {
    const time = virtualTime();
    const start = time.now();
    const model = new RetryingModel(stalling(2, time), {
      service: 'gemini-cli',
      now: time.now,
      sleep: time.sleep,
    });
    const events = watched(model, time);
    expect((await model.generate({ prompt: 'x', temperature: 0 })).text).toBe('ok');
    const shown = events.map((e) =>
      e.type === 'wait-start'
        ? { start: e.reason, at: e.t - start }
        : { end: e.type === 'wait-end' ? e.waitId : e.type, at: e.t - start },
    );
    expect(shown).toEqual([
      {
        start:
          "Gemini CLI's model call failed: the answer stopped: nothing for 20 s; retrying in 2 s (try 2 of 3)",
        at: 20_000,
      },
      { end: 'w1', at: 42_000 },
      {
        start:
          "Gemini CLI's model call failed: the answer stopped: nothing for 20 s; retrying in 4 s (try 3 of 3)",
        at: 42_000,
      },
      { end: 'w2', at: 66_000 },
    ]);
  });

  it('a call that gives up, with the default silence limit: every failed try said within 30 s of the last word, then the cause and `maker resume`', async () => {
    const time = virtualTime();
    const start = time.now();
    const model = new RetryingModel(stalling(3, time), {
      service: 'gemini-cli',
      now: time.now,
      sleep: time.sleep,
    });
    const events = watched(model, time);
    const failed = model.generate({ prompt: 'x', temperature: 0 });
    await expect(failed).rejects.toBeInstanceOf(ApiCallError);
    await expect(failed).rejects.toThrow(
      /the answer stopped: nothing for 20 s \(tried 3 times\)[\s\S]*run `maker resume`/,
    );
    const said = [start, ...events.filter((e) => e.type === 'wait-start').map((e) => e.t)];
    said.push(time.now());
    expect(said).toHaveLength(4);
    for (let i = 1; i < said.length; i++)
      expect((said[i] ?? 0) - (said[i - 1] ?? 0)).toBeLessThanOrEqual(30_000);
    // Nothing is left shown once the call gave up.
    expect(events.filter((e) => e.type === 'wait-end')).toHaveLength(2);
  });
});
