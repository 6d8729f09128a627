import { join } from 'node:path';
import type { GitWorkspace } from '../../adapters/git/git-workspace.js';
import type { JulesConfig } from '../../core/tree/schema.js';
import { julesOverrides, type JulesPlan } from '../../app/wiring/jules-wiring.js';

/** The Jules settings the flags ask for: a plan's limits and explicit overrides; none when no flag is given. */
export function julesChoices(values: {
  julesPlan?: JulesPlan | undefined;
  julesConcurrency?: number | undefined;
  julesDailySessions?: number | undefined;
  julesPlanReview?: boolean | undefined;
  julesOutageSeconds?: number | undefined;
}): Partial<JulesConfig> | undefined {
  const choices = julesOverrides({
    plan: values.julesPlan,
    concurrency: values.julesConcurrency,
    dailySessions: values.julesDailySessions,
    ...(values.julesPlanReview === true ? { planReview: true } : {}),
    outageSeconds: values.julesOutageSeconds,
  });
  return Object.keys(choices).length === 0 ? undefined : choices;
}

/** A local bare repository as `origin` (the demo's stand-in for GitHub), with the default branch pushed. */
export async function addLocalOrigin(workspace: GitWorkspace): Promise<void> {
  if ((await workspace.remoteUrl('origin')) !== undefined) return;
  const origin = join(await workspace.gitDir(), 'maker-demo-origin.git');
  await workspace.addBareOrigin(origin);
}
