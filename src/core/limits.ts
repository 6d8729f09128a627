/**
 * Sizes a person, a model or a tool argument may hand MAKER. Everything here is kept in the state
 * file and goes into prompts, so it is bounded where it enters, with a message saying the bound.
 */
export const LIMITS = {
  /** The idea a run starts from. */
  ideaChars: 8_000,
  /** A person's free-text answer (it becomes a clarification in every prompt below its node). */
  answerChars: 4_000,
  /** Ids passed in (run, question, option). */
  idChars: 128,
  /** A repository path passed in. */
  pathChars: 1_024,
  /** A check command (a person's overall check, a subtask's check). */
  checkChars: 500,
  /** A question a worker asks on an agent's behalf (an agent's message). */
  workerQuestionChars: 4_000,
  /**
   * Files one candidate may write or delete: more is a red flag (`too-many-files`), judged before
   * anything of it is built, so a hostile candidate cannot exhaust open files or disk.
   */
  candidateFiles: 1_000,
} as const;

/** `text` cut to `max` characters, saying how much was left out. */
export function clip(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}\n… (${text.length - max} more characters)`;
}
