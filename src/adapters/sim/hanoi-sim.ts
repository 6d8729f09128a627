import { uniform, uniformAt, uniformPrefix } from '../../core/random.js';
import type { ModelResponse } from '../../core/red-flags/index.js';
import { strategyMove, type HanoiMove, type HanoiStepInput } from '../../core/hanoi/hanoi.js';
import { HANOI_MAX_OUTPUT_TOKENS } from '../../core/hanoi/prompts.js';
import type { HanoiAgent } from '../../ports/hanoi-agent.js';
import { AnswerWriter, flat, UNCHANGED } from './hanoi-text.js';

export interface HanoiSimOptions {
  readonly seed: number;
  /** Probability a valid response on an ordinary step is correct (gpt-4.1-mini: 0.9978). */
  readonly p: number;
  /** Probability a response passes red-flagging (is well-formed and within the token cap). */
  readonly v: number;
  /** Fraction of steps that are "hard" (default 1e-5: about ten of the 20-disk run's steps). */
  readonly hardRate?: number;
  /** Error rate of a valid response on a hard step (default 0.1, 45× the ordinary rate at p = 0.9978). */
  readonly hardErrorRate?: number;
  /**
   * Probability a response on a hard step comes out over-long (then it is truncated at the cap and
   * flagged). Confusion shows in length: the paper's reason for the length flag. Default 0.3.
   */
  readonly hardLongRate?: number;
}

/**
 * A seeded simulated model for the Hanoi benchmark. Each response depends only on (seed, step,
 * draw slot) and the step's input, never on timing. On an ordinary step a valid response is correct
 * with probability `p`, else it is one dominant wrong answer (moving the disk to the other peg),
 * the worst case of the paper's two-candidate analysis. A few "hard" steps err far more often, but
 * their errors are spread over three different wrong answers and their confused responses often run
 * long, as the paper observed. With probability 1 − `v` a response is malformed or truncated (half
 * each), so the red-flag rules discard it.
 */
export function hanoiSimAgent(options: HanoiSimOptions): HanoiAgent {
  const { seed, p, v } = options;
  const hardRate = options.hardRate ?? 1e-5;
  const hardErrorRate = options.hardErrorRate ?? 0.1;
  const hardLongRate = options.hardLongRate ?? 0.3;

  // Texts of the current input, rendered once: every draw of a step answers the same input.
  const texts = new StepTexts(new AnswerWriter());
  let cachedStep = -1;
  let hard = false;

  return (input, step, request): ModelResponse => {
    texts.answer(input);
    if (step !== cachedStep) {
      cachedStep = step;
      hard = uniform(seed, step, 0, 0xa1) < hardRate;
    }
    const at = uniformPrefix(seed, step, request.draw);
    const tokens = 420 + Math.floor(uniformAt(at, 0xa2) * 240);
    if (uniformAt(at, 0xa3) >= v || (hard && uniformAt(at, 0xa4) < hardLongRate)) {
      return uniformAt(at, 0xa5) < 0.5
        ? { text: texts.truncated(), finishReason: 'length', outputTokens: HANOI_MAX_OUTPUT_TOKENS }
        : { text: texts.malformed(), finishReason: 'stop', outputTokens: 600 };
    }
    const errorRate = hard ? hardErrorRate : 1 - p;
    const u = uniformAt(at, 0xa6);
    const answer =
      u >= errorRate || texts.stuck
        ? 0
        : hard
          ? 1 + Math.min(2, Math.floor((u / errorRate) * 3))
          : 1;
    return { text: texts.text(answer), finishReason: 'stop', outputTokens: tokens };
  };
}

/**
 * The texts a step can produce, rendered on first use: 0 is the strategy's answer, then three
 * plausible, well-formed mistakes: 1 the dominant one (the disk goes to the other peg), 2 the move
 * without its effect on the state, 3 the right move with the other peg's state. When the strategy
 * has no move from this input (only after an accepted error) the model is `stuck` and can only
 * produce a confused text that the parser flags. The flagged texts come from the strategy's: cut
 * at the token cap mid-state (truncated), or with a disk listed twice (malformed). One instance
 * serves every step: {@link answer} moves it to a new input.
 */
class StepTexts {
  readonly #writer: AnswerWriter;
  #input: HanoiStepInput | undefined;
  #move: HanoiMove | undefined;
  readonly #texts: (string | undefined)[] = [undefined, undefined, undefined, undefined];
  #truncated: string | undefined;
  #malformed: string | undefined;
  stuck = true;

  constructor(writer: AnswerWriter) {
    this.#writer = writer;
  }

  /** Answers `input` from now on (nothing changes when it is the current input). */
  answer(input: HanoiStepInput): void {
    if (input === this.#input) return;
    this.#input = input;
    this.#move = strategyMove(input);
    this.stuck = this.#move === undefined;
    const texts = this.#texts;
    texts[0] = texts[1] = texts[2] = texts[3] = undefined;
    this.#truncated = this.#malformed = undefined;
  }

  text(index: number): string {
    return (this.#texts[index] ??= this.#render(index));
  }

  truncated(): string {
    const correct = this.text(0);
    return (this.#truncated ??= flat(correct.slice(0, Math.max(0, correct.length - 7))));
  }

  malformed(): string {
    return (this.#malformed ??= flat(this.text(0).replace(/\[\[/, '[[1, ')));
  }

  #render(index: number): string {
    const move = this.#move;
    const input = this.#input;
    if (move === undefined || input === undefined) return STUCK;
    const [disk, from, to] = move;
    const misplaced: HanoiMove = [disk, from, 3 - from - to];
    const writer = this.#writer;
    switch (index) {
      case 0:
        return writer.renderMoved(move, input.state, move);
      case 1:
        return writer.renderMoved(misplaced, input.state, misplaced);
      case 2:
        return writer.renderMoved(move, input.state, UNCHANGED);
      default:
        return writer.renderMoved(move, input.state, misplaced);
    }
  }
}

const STUCK = 'I could not find a legal move from this state.';
