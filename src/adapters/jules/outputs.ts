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
