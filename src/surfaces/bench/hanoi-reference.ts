import {
  redFlagger,
  tokenCapRule,
  abnormalStopRule,
  type ModelResponse,
} from '../../core/red-flags.js';
import {
  answerKey,
  initialState,
  type HanoiAnswer,
  type HanoiStepInput,
} from '../../core/hanoi/hanoi.js';
import { hanoiParser } from '../../core/hanoi/parser.js';
import { HANOI_MAX_OUTPUT_TOKENS } from '../../core/hanoi/prompts.js';
import type { HanoiAgent } from '../../engine/hanoi/agent.js';

/**
 * The yardstick for the voter's overhead: the paper's `do_voting` as a bare synchronous loop over
 * the same simulated agent and the same red-flag parser, one draw at a time, no events, no
 * promises, no statistics. Requires an agent that answers synchronously.
 */
export function referenceHanoiLoop(
  disks: number,
  k: number,
  steps: number,
  agent: HanoiAgent,
): { samples: number; lastState: HanoiStepInput['state'] } {
  const check = redFlagger<ModelResponse, HanoiAnswer>(hanoiParser(disks), [
    tokenCapRule(HANOI_MAX_OUTPUT_TOKENS),
    abnormalStopRule,
  ]);
  let input: HanoiStepInput = { previousMove: null, state: initialState(disks) };
  let samples = 0;
  for (let step = 0; step < steps; step++) {
    const counts = new Map<string, { votes: number; answer: HanoiAnswer }>();
    let winner: HanoiAnswer | undefined;
    for (let draw = 0; winner === undefined; draw++) {
      samples += 1;
      const response = agent(input, step, {
        draw,
        round: draw + 1,
        temperature: draw === 0 ? 0 : 0.1,
        signal: undefined,
      });
      if (response instanceof Promise)
        throw new TypeError('The reference loop needs a synchronous agent.');
      const sample = check(response);
      if (!sample.ok) continue;
      const key = answerKey(sample.value);
      const entry = counts.get(key) ?? { votes: 0, answer: sample.value };
      entry.votes += 1;
      counts.set(key, entry);
      let runnerUp = 0;
      for (const [other, { votes }] of counts)
        if (other !== key && votes > runnerUp) runnerUp = votes;
      if (entry.votes >= runnerUp + k) winner = entry.answer;
      if (draw > 10_000) throw new Error(`The reference loop did not converge at step ${step}.`);
    }
    input = { previousMove: winner.move, state: winner.nextState };
  }
  return { samples, lastState: input.state };
}
