import { voteFirstToAheadByK, type VoteOptions } from '../../core/voting/first-to-ahead-by-k.js';
import type { Sample, Sampler, VoteResult } from '../../core/voting/types.js';
import {
  redFlagger,
  tokenCapRule,
  abnormalStopRule,
  type ModelResponse,
} from '../../core/red-flags/index.js';
import {
  answerKey,
  initialState,
  isApplied,
  isGoal,
  stepCount,
  strategyMove,
  type HanoiAnswer,
  type HanoiMove,
  type HanoiStepInput,
} from '../../core/hanoi/hanoi.js';
import { hanoiParser } from '../../core/hanoi/parser.js';
import { HANOI_MAX_OUTPUT_TOKENS } from '../../core/hanoi/prompts.js';
import type { HanoiAgent } from '../../ports/hanoi-agent.js';

export interface SolveHanoiOptions {
  readonly disks: number;
  readonly k: number;
  readonly agent: HanoiAgent;
  /** Draws in each step's first parallel batch (default k). */
  readonly initialBatch?: number;
  /** Per-step cap on draws; a step undecided at the cap ends the run. */
  readonly maxDraws?: number;
  /** Run only the first `steps` steps (default: all 2^n − 1). */
  readonly steps?: number;
  readonly signal?: AbortSignal;
  /**
   * Called about every `progressEvery` steps and once at the end. The loop also yields to the
   * event loop there, so that timers and signal handlers (an abort on Ctrl-C) run.
   */
  readonly onProgress?: (done: number, total: number) => void;
  readonly progressEvery?: number;
}

export interface SolveHanoiReport {
  readonly disks: number;
  readonly steps: number;
  /** Steps decided (equals `steps` unless the run stopped early). */
  readonly stepsDone: number;
  readonly k: number;
  readonly initialBatch: number;
  /** Every step decided, none wrong, and the tower ends on its goal peg. */
  readonly solved: boolean;
  /** Steps whose accepted (move, next_state) differs from the oracle's answer for that step's input. */
  readonly errors: number;
  /** First few wrong steps (0-based), for diagnosis. */
  readonly errorSteps: readonly number[];
  /** Steps whose first two valid votes were both wrong (the paper's collision count). */
  readonly collisions: number;
  /** Draws, flagged ones included. */
  readonly samples: number;
  readonly validSamples: number;
  readonly flagged: number;
  readonly flaggedByRule: Readonly<Record<string, number>>;
  readonly maxDrawsPerStep: number;
  readonly maxRoundsPerStep: number;
  /** Entry r − 1: steps still undecided after sampling round r. */
  readonly undecidedAfterRound: readonly number[];
  /** Why the run stopped before the last step, if it did. */
  readonly stoppedEarly?: { readonly step: number; readonly reason: string };
}

/**
 * Solves Towers of Hanoi the MAKER way (m = 1): every step is one first-to-ahead-by-k vote over
 * (move, next_state) pairs, red-flagged by the paper's token cap and strict parser, and the winning
 * next_state is the next step's input (no simulator recomputes it). The oracle only scores.
 */
// eslint-disable-next-line max-lines-per-function -- over 80 lines: to be split by job (#40)
export async function solveHanoi(options: SolveHanoiOptions): Promise<SolveHanoiReport> {
  const { disks, k, agent, signal, onProgress } = options;
  const initialBatch = options.initialBatch ?? k;
  const total = Math.min(options.steps ?? stepCount(disks), stepCount(disks));
  const progressEvery = options.progressEvery ?? 16_384;
  const check = redFlagger<ModelResponse, HanoiAnswer>(hanoiParser(disks), [
    tokenCapRule(HANOI_MAX_OUTPUT_TOKENS),
    abnormalStopRule,
  ]);

  let input: HanoiStepInput = { previousMove: null, state: initialState(disks) };
  let samples = 0;
  let validSamples = 0;
  let maxDrawsPerStep = 0;
  let maxRounds = 0;
  let errors = 0;
  let collisions = 0;
  const errorSteps: number[] = [];
  const flaggedByRule: Record<string, number> = {};
  const undecidedAfterRound: number[] = [];
  let stoppedEarly: SolveHanoiReport['stoppedEarly'];

  // Per-step scratch shared with the sampler closure (one closure for the whole run).
  let step = 0;
  // The strategy's move from `input` (undefined: it has none); answers are scored against
  // `apply(input.state, truth)` by value, and the verdict on the first valid answer is kept for
  // answers equal to it.
  let truth: HanoiMove | undefined;
  let firstValid: HanoiAnswer | undefined;
  let firstRight = false;
  let validSeen = 0;
  let wrongFirstTwo = 0;
  const isRight = (answer: HanoiAnswer): boolean => {
    if (
      firstValid !== undefined &&
      (answer === firstValid || (answer.key !== undefined && answer.key === firstValid.key))
    )
      return firstRight;
    return truth !== undefined && isApplied(answer, input.state, truth);
  };
  const score = (sample: Sample<HanoiAnswer>): Sample<HanoiAnswer> => {
    if (sample.ok) {
      if (validSeen < 2) {
        validSeen += 1;
        const right = isRight(sample.value);
        if (validSeen === 1) {
          firstValid = sample.value;
          firstRight = right;
        }
        if (!right) wrongFirstTwo += 1;
      }
    } else {
      for (const flag of sample.flags)
        flaggedByRule[flag.rule] = (flaggedByRule[flag.rule] ?? 0) + 1;
    }
    return sample;
  };
  const sample: Sampler<HanoiAnswer> = (request) => {
    const response = agent(input, step, request);
    return response instanceof Promise
      ? response.then((r) => score(check(r)))
      : score(check(response));
  };
  // One options object for every step's vote: only the sampler's scratch changes between steps.
  const vote: VoteOptions<HanoiAnswer> = {
    k,
    sample,
    keyOf: answerKey,
    initialBatch,
    ...(options.maxDraws === undefined ? {} : { maxDraws: options.maxDraws }),
    ...(signal === undefined ? {} : { signal }),
  };

  for (; step < total; step++) {
    truth = strategyMove(input);
    firstValid = undefined;
    validSeen = 0;
    wrongFirstTwo = 0;
    const pending = voteFirstToAheadByK(vote);
    const result: VoteResult<HanoiAnswer> = pending instanceof Promise ? await pending : pending;
    samples += result.draws;
    validSamples += result.validDraws;
    if (result.draws > maxDrawsPerStep) maxDrawsPerStep = result.draws;
    if (result.rounds > maxRounds) maxRounds = result.rounds;
    for (let r = 0; r < result.rounds - 1; r++)
      undecidedAfterRound[r] = (undecidedAfterRound[r] ?? 0) + 1;
    if (wrongFirstTwo === 2) collisions += 1;
    if (result.status === 'undecided') {
      const votes = k === 1 ? 'vote' : 'votes';
      const stuck =
        truth === undefined
          ? ' (an earlier wrong step left a state the strategy has no move from)'
          : '';
      stoppedEarly = {
        step,
        reason: `no answer was ${k} ${votes} ahead after ${result.draws} draws${stuck}`,
      };
      break;
    }
    if (!isRight(result.winner)) {
      errors += 1;
      if (errorSteps.length < 10) errorSteps.push(step);
    }
    input = { previousMove: result.winner.move, state: result.winner.nextState };
    if ((step + 1) % progressEvery === 0) {
      onProgress?.(step + 1, total);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  const stepsDone = stoppedEarly === undefined ? total : stoppedEarly.step;
  onProgress?.(stepsDone, total);

  return {
    disks,
    steps: total,
    stepsDone,
    k,
    initialBatch,
    solved:
      stoppedEarly === undefined &&
      errors === 0 &&
      total === stepCount(disks) &&
      isGoal(input.state, disks),
    errors,
    errorSteps,
    collisions,
    samples,
    validSamples,
    flagged: samples - validSamples,
    flaggedByRule,
    maxDrawsPerStep,
    maxRoundsPerStep: maxRounds,
    undecidedAfterRound,
    ...(stoppedEarly === undefined ? {} : { stoppedEarly }),
  };
}
