import {
  redFlagger,
  tokenCapRule,
  abnormalStopRule,
  type ModelResponse,
} from '../../core/red-flags/index.js';
import {
  answerKey,
  initialState,
  type HanoiAnswer,
  type HanoiStepInput,
} from '../../core/hanoi/hanoi.js';
import { hanoiParser } from '../../core/hanoi/parser.js';
import { HANOI_MAX_OUTPUT_TOKENS } from '../../core/hanoi/prompts.js';
import type { HanoiAgent } from '../../ports/hanoi-agent.js';

/**
 * The yardstick for the voter's overhead: the paper's `do_voting` as a bare synchronous loop over
 * the same simulated agent and the same red-flag parser, one draw at a time, no events, no
 * promises, no statistics. With `initialBatch` > 1 the first check waits until that many draws
 * are in, as the batched voter's does; from then on it checks after every vote. Requires an agent
 * that answers synchronously.
 */
export function referenceHanoiLoop(
  disks: number,
  k: number,
  steps: number,
  agent: HanoiAgent,
  initialBatch = k,
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
        round: 1,
        temperature: draw === 0 ? 0 : 0.1,
        signal: undefined,
      });
      if (response instanceof Promise)
        throw new TypeError('The reference loop needs a synchronous agent.');
      const sample = check(response);
      if (sample.ok) {
        const key = answerKey(sample.value);
        const entry = counts.get(key) ?? { votes: 0, answer: sample.value };
        entry.votes += 1;
        counts.set(key, entry);
      }
      if (draw + 1 >= initialBatch) winner = leaderAheadBy(counts, k);
      if (draw > 10_000) throw new Error(`The reference loop did not converge at step ${step}.`);
    }
    input = { previousMove: winner.move, state: winner.nextState };
  }
  return { samples, lastState: input.state };
}

function leaderAheadBy(
  counts: Map<string, { votes: number; answer: HanoiAnswer }>,
  k: number,
): HanoiAnswer | undefined {
  let best: { votes: number; answer: HanoiAnswer } | undefined;
  let second = 0;
  for (const entry of counts.values()) {
    if (best === undefined || entry.votes > best.votes) {
      if (best !== undefined) second = best.votes;
      best = entry;
    } else if (entry.votes > second) second = entry.votes;
  }
  return best !== undefined && best.votes >= second + k ? best.answer : undefined;
}
