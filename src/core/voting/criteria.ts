/**
 * What "best" means on a judge's ballot, by kind of vote. Every ballot states its criteria: a judge
 * told only "pick the best" weighs whatever it likes.
 */
export const BALLOT_CRITERIA = {
  split:
    'complete (together the subtasks do the whole task and nothing more), non-overlapping (no two subtasks write the same thing), each subtask small and checkable on its own, ordered so that each builds only on earlier ones',
  code: 'correct (it does what the subtask asks and its check passes), complete for the subtask, minimal and on-task (it changes nothing the subtask does not need), consistent with the code around it',
  integration:
    'it keeps what both sides meant, leaves no conflict markers, and changes nothing beyond reconciling the conflicting files',
} as const;

export type BallotKind = keyof typeof BALLOT_CRITERIA;

/** The question a ballot of this kind asks about `title`, criteria included. */
export function ballotQuestion(kind: BallotKind, title: string): string {
  const what =
    kind === 'split'
      ? `Which decomposition of "${title}" into subtasks is best?`
      : kind === 'integration'
        ? `Which resolution of the merge conflict in "${title}" is best?`
        : `Which change best completes the subtask "${title}"?`;
  return `${what} Best means: ${BALLOT_CRITERIA[kind]}.`;
}
