import { join } from 'node:path';
import type { GitWorkspace } from '../../adapters/git/git-workspace.js';
import { UsageError } from '../../core/errors.js';
import type { JulesConfig } from '../../core/tree/schema.js';
import { JULES_PLANS, julesOverrides, type JulesPlan } from '../jules-wiring.js';
import { numberFlag } from './args.js';

/** The Jules settings the flags ask for: a plan's limits and explicit overrides; none when no flag is given. */
export function julesChoices(values: {
  'jules-plan'?: string | undefined;
  'jules-concurrency'?: string | undefined;
  'jules-daily-sessions'?: string | undefined;
  'jules-plan-review'?: boolean | undefined;
}): Partial<JulesConfig> | undefined {
  const plan = values['jules-plan'];
  if (plan !== undefined && !(plan in JULES_PLANS))
    throw new UsageError(`--jules-plan must be free, pro or ultra (got "${plan}").`);
  const concurrency = numberFlag('jules-concurrency', values['jules-concurrency'], {
    min: 1,
    max: 100,
    integer: true,
  });
  const dailySessions = numberFlag('jules-daily-sessions', values['jules-daily-sessions'], {
    min: 1,
    max: 10_000,
    integer: true,
  });
  const choices = julesOverrides({
    ...(plan === undefined ? {} : { plan: plan as JulesPlan }),
    concurrency,
    dailySessions,
    ...(values['jules-plan-review'] === true ? { planReview: true } : {}),
  });
  return Object.keys(choices).length === 0 ? undefined : choices;
}

/** A local bare repository as `origin` (the demo's stand-in for GitHub), with the default branch pushed. */
export async function addLocalOrigin(workspace: GitWorkspace): Promise<void> {
  if ((await workspace.remoteUrl('origin')) !== undefined) return;
  const origin = join(await workspace.gitDir(), 'maker-demo-origin.git');
  await workspace.addBareOrigin(origin);
}
