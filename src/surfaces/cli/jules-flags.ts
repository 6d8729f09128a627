import type { JulesConfig } from '../../core/tree/schema.js';
import { julesOverrides, type JulesPlan } from '../../app/workers/jules-settings.js';

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
