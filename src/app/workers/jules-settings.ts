import { ConfigError } from '../../core/errors.js';
import type { JulesConfig } from '../../core/tree/schema.js';
import type { WorkerSetting } from './kind.js';

/**
 * What the Jules kinds read and choose, without Jules's code (loaded only when a run builds its
 * worker, in jules-build.ts): the plans, the settings and what is wrong with their values.
 */

/** What each Jules plan allows: sessions at once, and sessions per 24 hours. */
export const JULES_PLANS = {
  free: { concurrency: 3, dailySessions: 15 },
  pro: { concurrency: 15, dailySessions: 100 },
  ultra: { concurrency: 60, dailySessions: 300 },
} as const satisfies Record<string, Omit<JulesConfig, 'planReview'>>;

export type JulesPlan = keyof typeof JULES_PLANS;

/** What a person asks of Jules: a plan's limits, and explicit overrides of them. */
export interface JulesChoices {
  readonly plan?: JulesPlan | undefined;
  readonly concurrency?: number | undefined;
  readonly dailySessions?: number | undefined;
  readonly planReview?: boolean | undefined;
  /** Seconds Jules may fail every call before the run stops (resumable). */
  readonly outageSeconds?: number | undefined;
}

/** Only what was chosen: the named plan's limits, then the explicit values over them. */
export function julesOverrides(choices: JulesChoices): Partial<JulesConfig> {
  return {
    ...(choices.plan === undefined ? {} : JULES_PLANS[choices.plan]),
    ...(choices.concurrency === undefined ? {} : { concurrency: choices.concurrency }),
    ...(choices.dailySessions === undefined ? {} : { dailySessions: choices.dailySessions }),
    ...(choices.planReview === undefined ? {} : { planReview: choices.planReview }),
    ...(choices.outageSeconds === undefined ? {} : { outageSeconds: choices.outageSeconds }),
  };
}

/** The page where a person follows Jules session `id` (the `url` Jules gives each session). */
export function julesSessionUrl(id: string): string {
  return `https://jules.google.com/session/${encodeURIComponent(id)}`;
}

/** `MAKER_JULES_OUTAGE_S`: seconds Jules may fail every call before the run stops. */
export const OUTAGE_SETTING: WorkerSetting = {
  env: 'MAKER_JULES_OUTAGE_S',
  purpose: 'seconds Jules may fail every call before the run stops (default 600)',
  problem: (value) => outageSettingProblem(value)[0],
};

/** What is wrong with a `MAKER_JULES_OUTAGE_S` value (nothing when it is empty or valid). */
export function outageSettingProblem(envSeconds: string): string[] {
  const seconds = Number(envSeconds);
  return envSeconds === '' || (Number.isInteger(seconds) && seconds >= 1 && seconds <= 86_400)
    ? []
    : [
        `MAKER_JULES_OUTAGE_S must be a whole number of seconds from 1 to 86400 (how long Jules may fail every call before the run stops); got "${envSeconds}".`,
      ];
}

/** What is wrong with a `JULES_POLL_MS` value (nothing when it is empty or valid). */
export function pollSettingProblem(raw: string): string[] {
  const first = Number(raw.split(':')[0]);
  return raw === '' || (Number.isInteger(first) && first >= 1)
    ? []
    : [
        `JULES_POLL_MS must be the first poll delay in ms, optionally :cap (e.g. 15000:60000); got "${raw}".`,
      ];
}

/** `JULES_POLL_MS` = `first` or `first:cap`, in ms (default 15000:60000). */
export function pollSetting(raw: string): { initial: number; max: number } | undefined {
  if (raw === '') return undefined;
  const problem = pollSettingProblem(raw)[0];
  if (problem !== undefined) throw new ConfigError(problem);
  const [first = 1, cap] = raw.split(':').map(Number);
  return {
    initial: first,
    max: cap !== undefined && Number.isInteger(cap) && cap >= first ? cap : Math.max(first, 60_000),
  };
}

const GITHUB_REMOTE = /github\.com[:/]([^/\s]+)\/([^/\s]+?)(?:\.git)?\/?$/;

/** Why a remote URL cannot name a Jules source (nothing when it is a GitHub repository). */
export function julesSourceProblem(remoteUrl: string | undefined): string[] {
  return GITHUB_REMOTE.test(remoteUrl ?? '')
    ? []
    : [
        `The jules worker needs the repository on GitHub: its origin remote (${remoteUrl ?? 'none'}) is not a GitHub URL. Add one with git remote add origin https://github.com/<owner>/<repo>, or set JULES_SOURCE=sources/github/<owner>/<repo>.`,
      ];
}

/** The Jules source of a GitHub remote URL (https or ssh), e.g. `sources/github/owner/repo`. */
export function julesSourceOf(remoteUrl: string | undefined): string {
  const match = GITHUB_REMOTE.exec(remoteUrl ?? '');
  if (match === null) throw new ConfigError(julesSourceProblem(remoteUrl)[0] as string);
  return `sources/github/${match[1]}/${match[2]}`;
}
