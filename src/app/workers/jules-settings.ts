import { ConfigError } from '../../core/errors.js';
import { optionProblems, type KindOptions } from './kind-options.js';
import type { WorkerSetting } from './kind.js';

/**
 * What the Jules kinds read and choose, without Jules's code (loaded only when a run builds its
 * worker, in jules-build.ts): the plans, the run options, the settings and what is wrong with their
 * values.
 */

/** What each Jules plan allows: sessions at once, and sessions per 24 hours. */
export const JULES_PLANS = {
  free: { concurrency: 3, dailySessions: 15 },
  pro: { concurrency: 15, dailySessions: 100 },
  ultra: { concurrency: 60, dailySessions: 300 },
} as const satisfies Record<string, { concurrency: number; dailySessions: number }>;

export type JulesPlan = keyof typeof JULES_PLANS;

/** What a run of a Jules kind keeps of its options (`config.workerOptions`). */
export interface JulesLimits {
  readonly concurrency: number;
  readonly dailySessions: number;
  readonly planReview: boolean;
  /** Seconds Jules may fail every call before the run stops (absent: `MAKER_JULES_OUTAGE_S`, else 600). */
  readonly outageSeconds?: number;
}

/** The Jules kinds' run options, as a person chooses them (a plan, or limits one by one). */
const JULES_CHOICES: KindOptions['choices'] = [
  {
    name: 'plan',
    help: "free (3 sessions at once, 15 per 24 h; the jules worker's default), pro (15, 100) or ultra (60, 300): your plan's limits",
    value: { type: 'oneOf', of: ['free', 'pro', 'ultra'] },
  },
  {
    name: 'concurrency',
    help: "Jules sessions at once (overrides the plan's)",
    value: { type: 'whole', min: 1, max: 100 },
  },
  {
    name: 'dailySessions',
    help: "Jules sessions started in any 24 hours, across every run in this repository (overrides the plan's); when spent, the run stops and says when `maker resume` can go on",
    value: { type: 'whole', min: 1, max: 10_000 },
  },
  {
    name: 'planReview',
    help: "ask for an approval or veto of each Jules session's plan (default: plans are approved automatically)",
    value: { type: 'boolean' },
  },
  {
    name: 'outageSeconds',
    help: 'how long Jules may fail every call before the run stops (default 600, or MAKER_JULES_OUTAGE_S); meanwhile calls are retried with backoff and no candidate is discarded, and `maker resume` re-attaches every session',
    value: { type: 'whole', min: 1, max: 86_400 },
  },
];

/**
 * The Jules kinds' run options (`--jules-plan`, `jules: { plan }`, …) over `defaults`: what a run
 * keeps is the defaults, then what it kept before (a resume), then the chosen plan's limits, then
 * the limits chosen one by one.
 */
export function julesOptions(defaults: JulesLimits): KindOptions {
  return {
    name: 'jules',
    choices: JULES_CHOICES,
    keep: (chosen, kept = {}) => {
      const { plan, ...limits } = chosen;
      return {
        ...defaults,
        ...kept,
        ...(typeof plan === 'string' && Object.hasOwn(JULES_PLANS, plan)
          ? JULES_PLANS[plan as JulesPlan]
          : {}),
        ...Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined)),
      };
    },
    notes: `Jules settings (--jules-…) are kept in the run's state, so a resume keeps them.
Jules' own limits: a Retry-After up to 60 s is waited out (a longer one stops the
run, saying when to resume); at its concurrent task limit MAKER waits for one of
the run's sessions to finish; at its daily task limit the run stops, saying when
the quota frees up. Waits over 5 s show in the progress line and \`maker status\`.
`,
  };
}

/**
 * The limits a Jules run keeps (`config.workerOptions`, which core's schema does not look into),
 * checked here: a state file that holds anything else is refused, naming it.
 */
export function julesLimits(kept: Readonly<Record<string, unknown>> | undefined): JulesLimits {
  const { concurrency, dailySessions, planReview, outageSeconds } = kept ?? {};
  // The ranges the choices declare; a plan is never kept (it is kept as its two limits).
  const limits = JULES_CHOICES.filter((c) => c.name !== 'plan');
  if (
    concurrency === undefined ||
    dailySessions === undefined ||
    planReview === undefined ||
    optionProblems(
      { name: 'jules', choices: limits },
      { concurrency, dailySessions, planReview, outageSeconds },
    ).length > 0
  )
    throw new ConfigError(
      `This run's Jules settings in the state file are not valid (${JSON.stringify(kept ?? null)}): it was written by another version of MAKER or edited by hand. Resume it with that version, or start a new run.`,
    );
  return {
    concurrency: concurrency as number,
    dailySessions: dailySessions as number,
    planReview: planReview as boolean,
    ...(outageSeconds === undefined ? {} : { outageSeconds: outageSeconds as number }),
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
