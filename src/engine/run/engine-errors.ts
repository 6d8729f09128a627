import { MakerError } from '../../core/errors.js';

/** A subtree stopped because a question waits for a person and the run defers (`--hitl defer`). */
export class QuestionPendingError extends MakerError {
  override readonly name = 'QuestionPendingError';
  readonly questionId: string;
  constructor(questionId: string) {
    super('question-pending', `Waiting for an answer to question ${questionId}.`);
    this.questionId = questionId;
  }
}

/** The run cannot continue (a person chose to stop it, or `--hitl fail` met a question). */
export class RunStoppedError extends MakerError {
  override readonly name: string = 'RunStoppedError';
  constructor(message: string) {
    super('run-stopped', message);
  }
}

/**
 * The result's checks failed or could not run, and no person could be asked whether to land it
 * anyway (`--hitl auto` or `fail`): the run stops with status `failed-checks`, nothing landed.
 */
export class ChecksFailedError extends RunStoppedError {
  override readonly name = 'ChecksFailedError';
}
