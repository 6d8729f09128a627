import type { Reopen, Run } from '../tree/schema.js';

/** What people are told: `reopened 0 (Set up the package) because …`. */
export function reopenLine(r: Reopen, run?: Pick<Run, 'nodes'>): string {
  const title = run?.nodes[r.node]?.title;
  const who = title === undefined ? r.node : `${r.node} (${title})`;
  const where = `${r.failures === 1 ? 'the candidate' : `all ${r.failures} candidates`} of ${r.trigger.node} (${r.trigger.title}) failed their check`;
  return `reopened ${who} because ${where}: \`${r.signature}\``;
}
