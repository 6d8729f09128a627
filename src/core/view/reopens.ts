import type { Reopen, Run } from '../tree/schema.js';

/** What people are told: `reopened 0 (Set up the package) because …`. */
export function reopenLine(r: Reopen, run?: Pick<Run, 'nodes'>): string {
  const title = run?.nodes[r.node]?.title;
  const who = title === undefined ? r.node : `${r.node} (${title})`;
  const at = `${r.trigger.node} (${r.trigger.title})`;
  const checks = r.failures === 1 ? 'a check' : `${r.failures} checks`;
  const where =
    r.trigger.kind === 'merge'
      ? `a merge into ${at} broke ${checks} that passed below it`
      : r.trigger.kind === 'parent-check'
        ? `the parent's check failed on the composed result of ${at}`
        : r.trigger.kind === 'integration'
          ? `${r.failures === 1 ? 'the candidate' : `all ${r.failures} candidates`} reconciling a merge in ${at} failed the checks that passed below it`
          : `${r.failures === 1 ? 'the candidate' : `all ${r.failures} candidates`} of ${at} failed their check`;
  return `reopened ${who} because ${where}: \`${r.signature}\``;
}
