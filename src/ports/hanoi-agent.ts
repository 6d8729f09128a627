import type { ModelResponse } from '../core/red-flags/index.js';
import type { DrawRequest } from '../core/voting/types.js';
import type { HanoiStepInput } from '../core/hanoi/hanoi.js';

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
