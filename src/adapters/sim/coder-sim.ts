import { ApiCallError } from '../../core/errors.js';
import { hashString, uniform } from '../../core/random.js';
import type { GenerateRequest, GenerateResult, LanguageModel } from '../../ports/language-model.js';

/** A subtask's right and wrong answers, as whole files. */
export interface CoderSimAnswers {
  readonly right: Readonly<Record<string, string>>;
  readonly wrong: Readonly<Record<string, string>>;
}

/**
 * How real samples of one answer differ without differing in what they do: a comment, indentation,
 * blank lines. Each valid answer is written in one of these styles.
 */
const STYLES: readonly ((content: string) => string)[] = [
  (content) => content,
  (content) => `// Written for this subtask.\n${content}`,
  (content) => `${content.replace(/^( +)/gm, (indent) => indent.repeat(2))}\n\n`,
];

/**
 * A seeded simulated coding model for calibration: a worker draw (`<task>:worker:<slot>`) is valid
 * with probability `v` (otherwise an answer cut off at the output cap), and a valid one is the
 * task's right answer with probability `p`, else its one wrong answer (the paper's worst case: a
 * single dominant alternative), written in one of a few styles (a comment, wider indentation), as
 * real samples of one answer differ. Reviews (`…:review:…`) pass. Each answer depends only on the
 * seed, the task and the slot, never on call order.
 */
export class CoderSimModel implements LanguageModel {
  readonly id = 'sim';
  readonly #answers: ReadonlyMap<string, CoderSimAnswers>;
  readonly #p: number;
  readonly #v: number;
  readonly #seed: number;

  constructor(
    answers: ReadonlyMap<string, CoderSimAnswers>,
    rates: { p: number; v: number; seed: number },
  ) {
    this.#answers = answers;
    this.#p = rates.p;
    this.#v = rates.v;
    this.#seed = rates.seed;
  }

  generate(request: GenerateRequest): Promise<GenerateResult> {
    const [task = '', role = '', slotText = '0'] = (request.draw ?? '').split(':');
    if (role === 'review')
      return Promise.resolve({
        text: JSON.stringify({ verdict: 'ok', confidence: 0.9, reason: 'simulated review' }),
        finishReason: 'stop',
      });
    const answers = this.#answers.get(task);
    if (role !== 'worker' || answers === undefined)
      return Promise.reject(
        new ApiCallError(
          'sim',
          `The simulated coder has no answer for draw ${request.draw ?? '?'}.`,
        ),
      );
    const slot = Number(slotText);
    const at = hashString(task);
    if (uniform(this.#seed, at, slot, 0) >= this.#v)
      return Promise.resolve({ text: '{"files": [{"path": "', finishReason: 'length' });
    const files = uniform(this.#seed, at, slot, 1) < this.#p ? answers.right : answers.wrong;
    const style = Math.floor(uniform(this.#seed, at, slot, 2) * STYLES.length);
    return Promise.resolve({
      text: JSON.stringify({
        files: Object.entries(files).map(([path, content]) => ({
          path,
          content: STYLES[style]?.(content) ?? content,
        })),
        summary: 'simulated',
      }),
      finishReason: 'stop',
      outputTokens: 100,
      inputTokens: Math.ceil(request.prompt.length / 4),
    });
  }
}
