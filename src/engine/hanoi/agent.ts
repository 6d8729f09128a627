import {
  HANOI_MAX_OUTPUT_TOKENS,
  HANOI_SYSTEM_PROMPT,
  hanoiUserPrompt,
} from '../../core/hanoi/prompts.js';
import type { HanoiAgent } from '../../ports/hanoi-agent.js';
import type { LanguageModel } from '../../ports/language-model.js';

export type { HanoiAgent } from '../../ports/hanoi-agent.js';

/**
 * The paper's agent over a real language model: its prompts, the 750-token cap, the temperature the
 * voter asks for. `thinkingBudget` (thinking models only) bounds hidden reasoning; 0 turns it off,
 * matching the paper's non-reasoning gpt-4.1-mini.
 */
export function languageModelAgent(
  model: LanguageModel,
  options: { thinkingBudget?: number } = {},
): HanoiAgent {
  return (input, _step, request) =>
    model.generate({
      system: HANOI_SYSTEM_PROMPT,
      prompt: hanoiUserPrompt(input),
      temperature: request.temperature,
      maxOutputTokens: HANOI_MAX_OUTPUT_TOKENS,
      ...(options.thinkingBudget === undefined ? {} : { thinkingBudget: options.thinkingBudget }),
      signal: request.signal,
    });
}
