import type { Reopen, Run } from '../tree/schema.js';

/** What people are told: `reopened 0 (Set up the package) because …`. */
export function reopenLine(r: Reopen, run?: Pick<Run, 'nodes'>): string {
  const title = run?.nodes[r.node]?.title;
  const who = title === undefined ? r.node : `${r.node} (${title})`;
  const where =
    r.trigger.kind === 'candidates'
      ? `${r.failures === 1 ? 'the candidate' : `all ${r.failures} candidates`} of ${r.trigger.node} (${r.trigger.title}) failed their check`
      : `${r.failures === 1 ? 'a check' : `${r.failures} checks`} failed after a merge into ${r.trigger.node} (${r.trigger.title})`;
  return `reopened ${who} because ${where}: \`${r.signature}\``;
}
