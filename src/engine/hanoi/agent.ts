import type { ModelResponse } from '../../core/red-flags.js';
import type { DrawRequest } from '../../core/voting/types.js';
import type { HanoiStepInput } from '../../core/hanoi/hanoi.js';
import {
  HANOI_MAX_OUTPUT_TOKENS,
  HANOI_SYSTEM_PROMPT,
  hanoiUserPrompt,
} from '../../core/hanoi/prompts.js';
import type { LanguageModel } from '../../ports/language-model.js';

/**
 * One Hanoi agent call: given only the step's input (strategy, current state, previous move), return
 * the raw response. `step` is the 0-based step index; simulated agents use it as their random
 * coordinate, real ones ignore it. May answer synchronously.
 */
export type HanoiAgent = (
  input: HanoiStepInput,
  step: number,
  request: DrawRequest,
) => ModelResponse | Promise<ModelResponse>;

/** The paper's agent over a real language model: its prompts, the 750-token cap, the temperature the voter asks for. */
export function languageModelAgent(model: LanguageModel): HanoiAgent {
  return (input, _step, request) =>
    model.generate({
      system: HANOI_SYSTEM_PROMPT,
      prompt: hanoiUserPrompt(input),
      temperature: request.temperature,
      maxOutputTokens: HANOI_MAX_OUTPUT_TOKENS,
      signal: request.signal,
    });
}
