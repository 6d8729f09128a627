import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UsageError } from '../../src/core/errors.js';
import { WORKERS, kindOptions, optionSets } from '../../src/app/workers/index.js';
import {
  checkOptions,
  expected,
  optionProblems,
  type KindOptions,
} from '../../src/app/workers/kind-options.js';
import { julesLimits } from '../../src/app/workers/jules-settings.js';
import { kindChoices, kindFlags } from '../../src/surfaces/cli/kind-flags.js';
import { kindInputs } from '../../src/surfaces/mcp/tool-inputs.js';

/** A kind's options as a new kind's module would declare them: nothing else names them. */
const ECHO: KindOptions = {
  name: 'echo',
  choices: [
    { name: 'voice', help: 'how it echoes', value: { type: 'oneOf', of: ['soft', 'loud'] } },
    { name: 'repeatCount', help: 'echoes per call', value: { type: 'whole', min: 1, max: 9 } },
    { name: 'reverb', help: 'with reverb', value: { type: 'boolean' } },
  ],
  keep: (chosen, kept = {}) => ({ voice: 'soft', repeatCount: 1, ...kept, ...chosen }),
};

describe("a worker kind's own run options", () => {
  it('are checked by what the kind declares: unknown names and values out of range, all at once', () => {
    expect(optionProblems(ECHO, { voice: 'loud', repeatCount: 3, reverb: true })).toEqual([]);
    expect(
      optionProblems(ECHO, { volume: 3, repeatCount: 10, voice: 'LOUD', reverb: 'yes' }),
    ).toEqual([
      'echo.volume is not an option of echo (voice, repeatCount, reverb).',
      'echo.repeatCount must be a whole number from 1 to 9; got 10.',
      'echo.voice must be soft or loud; got "LOUD".',
      'echo.reverb must be true or false; got "yes".',
    ]);
    expect(() => checkOptions(ECHO, { repeatCount: 1.5 })).toThrow(UsageError);
    expect(expected({ type: 'oneOf', of: ['free', 'pro', 'ultra'] })).toBe('free, pro or ultra');
  });

  it('become flags and a tool input of their own, read off the declaration (no surface names them)', () => {
    // Proves: a kind with options needs no change to the CLI or the MCP server: its flags (with
    // their help and value checks) and its maker_start input are derived from what it declares.
    const flags = kindFlags([ECHO]);
    expect(Object.keys(flags)).toEqual(['echoVoice', 'echoRepeatCount', 'echoReverb']);
    expect(flags['echoVoice']?.flags).toBe('--echo-voice <voice>');
    expect(flags['echoRepeatCount']?.flags).toBe('--echo-repeat-count <n>');
    expect(flags['echoReverb']?.flags).toBe('--echo-reverb');
    expect(flags['echoRepeatCount']?.help).toBe('echoes per call');
    const schema = flags['echoRepeatCount']?.kind?.schema(z);
    expect(schema?.safeParse('4').data).toBe(4);
    expect(schema?.safeParse('12').success).toBe(false);
    expect(kindChoices({ echoVoice: 'loud', echoReverb: false, other: 1 }, [ECHO])).toEqual({
      echo: { voice: 'loud' },
    });
    expect(kindChoices({}, [ECHO])).toBeUndefined();

    const input = z.strictObject(kindInputs([ECHO]));
    expect(input.safeParse({ echo: { voice: 'soft', repeatCount: 2, reverb: true } }).success).toBe(
      true,
    );
    expect(input.safeParse({ echo: { volume: 2 } }).success).toBe(false);
    expect(input.safeParse({ echo: { repeatCount: 0 } }).success).toBe(false);
    const json = z.toJSONSchema(input) as unknown as {
      properties: { echo: { properties: Record<string, { description?: string }> } };
    };
    expect(json.properties.echo.properties['voice']?.description).toBe('how it echoes');
  });

  it('the Jules kinds: a plan is its two limits; explicit limits and a resumed run’s own over the defaults', () => {
    const jules = WORKERS.jules.options;
    const fake = WORKERS['jules-fake'].options;
    if (jules === undefined || fake === undefined)
      throw new Error('the Jules kinds lost their options');
    expect(optionSets()).toEqual([jules]); // jules-fake shares their name and choices
    expect(fake.choices).toEqual(jules.choices);
    expect(jules.keep({})).toEqual({ concurrency: 3, dailySessions: 15, planReview: false });
    expect(fake.keep({})).toEqual({ concurrency: 15, dailySessions: 10_000, planReview: false });
    expect(jules.keep({ plan: 'ultra', dailySessions: 40 })).toEqual({
      concurrency: 60,
      dailySessions: 40,
      planReview: false,
    });
    const kept = { concurrency: 15, dailySessions: 100, planReview: true, outageSeconds: 90 };
    expect(jules.keep({ dailySessions: 50 }, kept)).toEqual({ ...kept, dailySessions: 50 });
    expect(julesLimits(jules.keep({ outageSeconds: 5 }))).toMatchObject({ outageSeconds: 5 });
  });

  it('are refused for a kind without them, and checked for a kind with them, in the surface’s words', () => {
    const named = (name: string) => `The --${name}-… flags`;
    expect(kindOptions(WORKERS.sim, undefined, { named })).toBeUndefined();
    expect(() => kindOptions(WORKERS.sim, { jules: { plan: 'pro' } }, { named })).toThrow(
      'The --jules-… flags apply to the jules and jules-fake workers only, not to sim.',
    );
    expect(() => kindOptions(WORKERS.jules, { jules: { plan: 'gold' } }, { named })).toThrow(
      'jules.plan must be free, pro or ultra; got "gold".',
    );
    expect(kindOptions(WORKERS.jules, { jules: { plan: 'pro' } }, { named })).toEqual({
      concurrency: 15,
      dailySessions: 100,
      planReview: false,
    });
  });

  it('a state file whose kept Jules limits are not valid is refused, naming them', () => {
    expect(() => julesLimits({ concurrency: 0, dailySessions: 15, planReview: false })).toThrow(
      /This run's Jules settings in the state file are not valid \(\{"concurrency":0/,
    );
    expect(() => julesLimits({ concurrency: 3, dailySessions: 15 })).toThrow(/not valid/);
  });
});
