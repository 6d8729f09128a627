import {
  formatMove,
  formatState,
  oracleStep,
  type HanoiMove,
  type HanoiState,
} from '../../src/core/hanoi/hanoi.js';
import type { FakeGeminiReply, FakeGeminiRequest } from '../../src/offline/fake-gemini.js';

/**
 * A fake model that reads the paper's user prompt the way a model would (the previous move and the
 * current state, nothing else) and answers with the strategy's move, after a line of "reasoning".
 */
export function hanoiSolvingResponder(request: FakeGeminiRequest): FakeGeminiReply {
  const previous = /Previous move: (None|\[[^\]]*\])/.exec(request.prompt)?.[1];
  const state = /Current State: (\[\[.*\]\])/.exec(request.prompt)?.[1];
  if (previous === undefined || state === undefined)
    return { status: 400, message: 'not a Hanoi prompt' };
  const answer = oracleStep({
    previousMove: previous === 'None' ? null : (JSON.parse(previous) as HanoiMove),
    state: JSON.parse(state) as HanoiState,
  });
  if (answer === undefined) return { text: 'I am stuck.' };
  return {
    text: `Following the procedure.\nmove = ${formatMove(answer.move)}\nnext_state = ${formatState(answer.nextState)}`,
    outputTokens: 120,
  };
}
