import type { WorkerOutput } from '../../ports/worker.js';
import type { JulesActivity, JulesSession } from './schemas.js';

/** The candidate a finished session offers: its changeSet from `outputs`, else the last changeSet artifact. */
export function sessionPatch(
  session: JulesSession,
  activities: readonly JulesActivity[],
): { patch: string; baseCommitId: string | undefined; message: string | undefined } | undefined {
  const fromOutputs = session.outputs
    ?.map((o) => o.changeSet)
    .find((c) => c?.gitPatch?.unidiffPatch);
  const fromActivities = activities
    .flatMap((a) => a.artifacts ?? [])
    .map((a) => a.changeSet)
    .filter((c) => c?.gitPatch?.unidiffPatch)
    .at(-1);
  const changeSet = fromOutputs ?? fromActivities;
  const patch = changeSet?.gitPatch?.unidiffPatch;
  if (patch === undefined || patch === null || patch === '') return undefined;
  return {
    patch,
    baseCommitId: changeSet?.gitPatch?.baseCommitId ?? undefined,
    message: changeSet?.gitPatch?.suggestedCommitMessage ?? undefined,
  };
}

/** What a finished session offers as a candidate: its changeSet, if it has one on the subtask's base. */
export function sessionCandidate(
  session: JulesSession,
  activities: readonly JulesActivity[],
  baseCommit: string,
  externalId: string,
): WorkerOutput {
  const change = sessionPatch(session, activities);
  if (change === undefined)
    return { ok: false, reason: 'The Jules session finished without a changeSet.', externalId };
  if (change.baseCommitId !== undefined && change.baseCommitId !== baseCommit)
    return {
      ok: false,
      reason: `The Jules patch is based on ${change.baseCommitId}, not the subtask's base ${baseCommit}.`,
      externalId,
    };
  return {
    ok: true,
    patch: change.patch,
    ...(change.message === undefined ? {} : { summary: change.message }),
    externalId,
  };
}

/**
 * Answers to an agent's questions, and plan approvals, one session gets at most. Jules' agent asks
 * rarely, and once answered goes on: a session that waits on someone again after this many is
 * stuck (it would otherwise be answered until its time limit, 45 minutes, runs out). Counted as the
 * worker sent them and as the session's activities list them, whichever says more, so a resumed run
 * does not start again from 0.
 */
export const MAX_REPLIES_PER_SESSION = 5;

/** The red flag of a session stuck waiting on someone (see {@link MAX_REPLIES_PER_SESSION}). */
export function stuckSession(id: string, waitsFor: 'plan' | 'answer'): WorkerOutput {
  const what =
    waitsFor === 'plan'
      ? `awaited plan approval again after ${MAX_REPLIES_PER_SESSION} plan approvals`
      : `asked again after ${MAX_REPLIES_PER_SESSION} answers`;
  return {
    ok: false,
    rule: 'session-stuck',
    reason: `Jules session ${id} ${what} (at most ${MAX_REPLIES_PER_SESSION} per session): it is stuck, so it was archived and the candidate discarded.`,
    externalId: id,
  };
}
