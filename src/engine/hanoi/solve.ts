import { voteFirstToAheadByK, type VoteOptions } from '../../core/voting/first-to-ahead-by-k.js';
import type { RedFlag, Sample, Sampler, VoteResult } from '../../core/voting/types.js';
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
  type HanoiState,
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
export async function solveHanoi(options: SolveHanoiOptions): Promise<SolveHanoiReport> {
  const { disks, k, agent, signal, onProgress } = options;
  const initialBatch = options.initialBatch ?? k;
  const total = Math.min(options.steps ?? stepCount(disks), stepCount(disks));
  const progressEvery = options.progressEvery ?? 16_384;
  const check = redFlagger<ModelResponse, HanoiAnswer>(hanoiParser(disks), [
    tokenCapRule(HANOI_MAX_OUTPUT_TOKENS),
    abnormalStopRule,
  ]);
  const scorer = new StepScorer();
  const tally = new RunTally();
  let input: HanoiStepInput = { previousMove: null, state: initialState(disks) };
  let stoppedEarly: SolveHanoiReport['stoppedEarly'];

  // The step being voted on, shared with the sampler closure (one closure for the whole run).
  let step = 0;
  const record = (drawn: Sample<HanoiAnswer>): Sample<HanoiAnswer> => {
    if (drawn.ok) scorer.see(drawn.value);
    else tally.addFlags(drawn.flags);
    return drawn;
  };
  const sample: Sampler<HanoiAnswer> = (request) => {
    const response = agent(input, step, request);
    return response instanceof Promise
      ? response.then((r) => record(check(r)))
      : record(check(response));
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
    scorer.startStep(input);
    const pending = voteFirstToAheadByK(vote);
    const result: VoteResult<HanoiAnswer> = pending instanceof Promise ? await pending : pending;
    tally.addVote(result, scorer.collided);
    if (result.status === 'undecided') {
      stoppedEarly = { step, reason: undecidedReason(k, result.draws, scorer.truth === undefined) };
      break;
    }
    if (!scorer.isRight(result.winner)) tally.addError(step);
    input = { previousMove: result.winner.move, state: result.winner.nextState };
    if ((step + 1) % progressEvery === 0) {
      onProgress?.(step + 1, total);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  const stepsDone = stoppedEarly === undefined ? total : stoppedEarly.step;
  onProgress?.(stepsDone, total);
  const counts = tally.counts();
  return {
    disks,
    steps: total,
    stepsDone,
    k,
    initialBatch,
    solved:
      stoppedEarly === undefined &&
      counts.errors === 0 &&
      total === stepCount(disks) &&
      isGoal(input.state, disks),
    ...counts,
    ...(stoppedEarly === undefined ? {} : { stoppedEarly }),
  };
}

/**
 * One step's valid answers scored against the oracle as they are drawn. `truth` is the strategy's
 * move from the step's input (undefined: it has none); answers are scored against
 * `apply(input.state, truth)` by value, and the verdict on the first valid answer is kept for
 * answers equal to it.
 */
class StepScorer {
  truth: HanoiMove | undefined;
  #state: HanoiState | undefined;
  #firstValid: HanoiAnswer | undefined;
  #firstRight = false;
  #validSeen = 0;
  #wrongFirstTwo = 0;

  startStep(input: HanoiStepInput): void {
    this.#state = input.state;
    this.truth = strategyMove(input);
    this.#firstValid = undefined;
    this.#validSeen = 0;
    this.#wrongFirstTwo = 0;
  }

  isRight(answer: HanoiAnswer): boolean {
    const first = this.#firstValid;
    if (
      first !== undefined &&
      (answer === first || (answer.key !== undefined && answer.key === first.key))
    )
      return this.#firstRight;
    const { truth } = this;
    const state = this.#state;
    return truth !== undefined && state !== undefined && isApplied(answer, state, truth);
  }

  /** A valid answer drawn: only the step's first two count (for the collision count). */
  see(answer: HanoiAnswer): void {
    if (this.#validSeen >= 2) return;
    this.#validSeen += 1;
    const right = this.isRight(answer);
    if (this.#validSeen === 1) {
      this.#firstValid = answer;
      this.#firstRight = right;
    }
    if (!right) this.#wrongFirstTwo += 1;
  }

  /** The step's first two valid answers were both wrong (the paper's collision). */
  get collided(): boolean {
    return this.#wrongFirstTwo === 2;
  }
}

/** The run's counts, vote by vote: draws, flags by rule, rounds, collisions and wrong steps. */
class RunTally {
  #errors = 0;
  readonly #errorSteps: number[] = [];
  #collisions = 0;
  #samples = 0;
  #validSamples = 0;
  readonly #flaggedByRule: Record<string, number> = {};
  #maxDrawsPerStep = 0;
  #maxRounds = 0;
  readonly #undecidedAfterRound: number[] = [];

  addFlags(flags: readonly RedFlag[]): void {
    for (const flag of flags)
      this.#flaggedByRule[flag.rule] = (this.#flaggedByRule[flag.rule] ?? 0) + 1;
  }

  addVote(result: VoteResult<HanoiAnswer>, collided: boolean): void {
    this.#samples += result.draws;
    this.#validSamples += result.validDraws;
    if (result.draws > this.#maxDrawsPerStep) this.#maxDrawsPerStep = result.draws;
    if (result.rounds > this.#maxRounds) this.#maxRounds = result.rounds;
    for (let r = 0; r < result.rounds - 1; r++)
      this.#undecidedAfterRound[r] = (this.#undecidedAfterRound[r] ?? 0) + 1;
    if (collided) this.#collisions += 1;
  }

  /** A step whose winner differs from the oracle's answer; the first ten are kept. */
  addError(step: number): void {
    this.#errors += 1;
    if (this.#errorSteps.length < 10) this.#errorSteps.push(step);
  }

  /** The report's counts, in the report's order. */
  counts() {
    return {
      errors: this.#errors,
      errorSteps: this.#errorSteps,
      collisions: this.#collisions,
      samples: this.#samples,
      validSamples: this.#validSamples,
      flagged: this.#samples - this.#validSamples,
      flaggedByRule: this.#flaggedByRule,
      maxDrawsPerStep: this.#maxDrawsPerStep,
      maxRoundsPerStep: this.#maxRounds,
      undecidedAfterRound: this.#undecidedAfterRound,
    };
  }
}

/** Why a step that no answer won stops the run; `stuck`: the strategy has no move from its input. */
function undecidedReason(k: number, draws: number, stuck: boolean): string {
  const votes = k === 1 ? 'vote' : 'votes';
  const why = stuck ? ' (an earlier wrong step left a state the strategy has no move from)' : '';
  return `no answer was ${k} ${votes} ahead after ${draws} draws${why}`;
}
