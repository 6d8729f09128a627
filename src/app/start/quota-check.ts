import { PRESETS, type Confidence } from '../../core/tree/presets.js';
import {
  describeRequests,
  expectedRequests,
  quotaVerdict,
  subtasksWithin,
  type AccessName,
  type QuotaVerdict,
  type RequestEstimate,
} from '../../core/quota.js';
import { envValue, type Env } from '../env.js';

/** The setting that declares the person's own daily request limit (as `--daily-limit`). */
export const DAILY_LIMIT_SETTING = 'MAKER_DAILY_REQUESTS';

/** The daily limit `MAKER_DAILY_REQUESTS` declares, when it is a whole number (`--daily-limit` goes over it). */
export function declaredLimit(env: Env): number | undefined {
  const value = envValue(env, DAILY_LIMIT_SETTING);
  return /^[1-9]\d{0,8}$/.test(value) ? Number(value) : undefined;
}

export interface RunQuota {
  readonly estimate: RequestEstimate;
  readonly verdict: QuotaVerdict;
  /** One sentence for the person, or undefined when there is nothing to compare (no limit, no model). */
  readonly text: string | undefined;
}

/**
 * A new run's expected model requests (up to its node cap's subtasks, with its k) against the
 * daily limit of its access, or the declared one. Runs that call no model compare only with a
 * declared limit (the simulation's requests stand for the real run's).
 */
export function runQuota(input: {
  access: AccessName | undefined;
  confidence?: Confidence | undefined;
  k?: number | undefined;
  maxNodes?: number | undefined;
  declared?: number | undefined;
}): RunQuota {
  const k = input.k ?? PRESETS[input.confidence ?? 'medium'].k;
  const estimate = expectedRequests({ subtasks: subtasksWithin(input.maxNodes ?? 60), k });
  const verdict = quotaVerdict(estimate.total, input.access, input.declared);
  return {
    estimate,
    verdict,
    text:
      input.access === undefined && input.declared === undefined
        ? undefined
        : `this run may make up to ${describeRequests(estimate, verdict)}`,
  };
}
