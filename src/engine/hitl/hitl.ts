import { AbortedError } from '../../core/errors.js';
import type { Question, Run, RunConfig } from '../../core/tree/schema.js';
import { QuestionPendingError, RunStoppedError } from '../run/engine-errors.js';
import type { EngineEventInput } from '../events.js';
import { answerQuestion, type Answer } from './questions.js';

/** A question as a step asks it: the desk stamps `createdAt`; `allowText` defaults to false. */
export type Asked = Omit<Question, 'createdAt' | 'answer' | 'allowText'> & { allowText?: boolean };

/** What the desk needs from the engine: the time, a save of the state file, the run's events. */
export interface HitlDeps {
  readonly now: () => Date;
  save(): Promise<void>;
  emit(run: Run, event: EngineEventInput): void;
}

/** How a run waiting on a person holds its place: the node window lends it out meanwhile. */
export type Lend = <T>(wait: Promise<T>) => Promise<T>;

/**
 * Human in the loop for every run of one engine: questions asked once (by id) and saved, answers
 * recorded, and the runs waiting on them (`--hitl wait`) woken. What happens to a question nobody
 * has answered follows the run's policy ({@link byPolicy}).
 */
export class HitlDesk {
  readonly #deps: HitlDeps;
  readonly #waiters = new Map<
    string,
    { resolve: (answer: Answer) => void; reject: (error: unknown) => void }
  >();

  constructor(deps: HitlDeps) {
    this.#deps = deps;
  }

  /**
   * Asks `asked` once (by id) and resolves with its answer, following the run's HITL policy:
   * `auto` answers at once with `auto` (or, without one, stops the run: only a person can
   * decide), `fail` stops the run, `defer` rejects with {@link QuestionPendingError}, `wait`
   * waits for {@link answer}, rejecting with {@link AbortedError} when `halt` aborts.
   */
  async ask(
    run: Run,
    asked: Asked,
    auto: Answer | undefined,
    halt: AbortSignal,
    lend: Lend,
  ): Promise<Answer> {
    let question = run.questions.find((x) => x.id === asked.id);
    if (question === undefined) {
      question = {
        ...asked,
        allowText: asked.allowText ?? false,
        createdAt: this.#deps.now().toISOString(),
      };
      run.questions.push(question);
      await this.#deps.save();
      this.#deps.emit(run, { type: 'question-asked', question });
    }
    if (question.answer !== undefined) return question.answer;
    const policy = byPolicy(run.config.hitl, question, auto);
    if (policy instanceof Error) throw policy;
    if (policy !== 'wait') {
      await this.answer(run, question.id, policy.optionId ?? policy.text ?? '', true);
      return question.answer ?? policy;
    }
    if (halt.aborted) throw new AbortedError(halt.reason);
    // The node waiting on a person keeps its place, and another node may work meanwhile.
    return lend(
      new Promise<Answer>((resolve, reject) =>
        this.#waiters.set(`${run.id}/${question.id}`, { resolve, reject }),
      ),
    );
  }

  /**
   * Records an answer (see {@link answerQuestion}), saves it, announces it and wakes the run
   * waiting on it. A failed save takes the answer back (the person can answer again) and throws.
   */
  async answer(run: Run, questionId: string, answer: string, auto: boolean): Promise<Question> {
    const question = answerQuestion(run, questionId, answer, this.#deps.now(), auto);
    try {
      await this.#deps.save();
    } catch (error) {
      // Not on disk, so not given: the person can answer again (and a waiting run waits on).
      question.answer = undefined;
      throw error;
    }
    this.#deps.emit(run, {
      type: 'question-answered',
      questionId,
      answer: question.answer?.optionId ?? question.answer?.text ?? '',
    });
    const waiter = this.#waiters.get(`${run.id}/${questionId}`);
    this.#waiters.delete(`${run.id}/${questionId}`);
    if (question.answer !== undefined) waiter?.resolve(question.answer);
    return question;
  }

  /** Rejects every wait of run `runId` with {@link AbortedError} (its halt aborted). */
  abandon(runId: string, reason: unknown): void {
    for (const [key, waiter] of this.#waiters)
      if (key.startsWith(`${runId}/`)) waiter.reject(new AbortedError(reason));
  }
}

/**
 * What an unanswered question gets under `policy`: an answer given now (`auto`), a stop (the
 * error to throw), or `'wait'` for a person's answer.
 */
export function byPolicy(
  policy: RunConfig['hitl'],
  question: Pick<Question, 'id' | 'prompt'>,
  auto: Answer | undefined,
): Answer | Error | 'wait' {
  switch (policy) {
    case 'auto':
      return (
        auto ??
        new RunStoppedError(
          `A person's decision is needed, which --hitl auto does not make: ${question.prompt} (question ${question.id}). Answer it with maker answer, then run maker resume.`,
        )
      );
    case 'fail':
      return new RunStoppedError(
        `A person's decision is needed and --hitl is "fail": ${question.prompt} (question ${question.id}).`,
      );
    case 'defer':
      return new QuestionPendingError(question.id);
    case 'wait':
      return 'wait';
  }
}
