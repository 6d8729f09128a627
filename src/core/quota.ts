import { expectedDrawsPerSubtask } from './math.js';

/**
 * Model requests before cost: how many requests a run is expected to make, against the daily
 * request limit of the access it uses (Gemini CLI's quota documentation, 2026): a person who would
 * spend more than half a day's requests on one run is asked first.
 */

export type AccessName = 'key' | 'vertex' | 'gemini-cli';

/** Known daily request limits, by access (undefined: none known; billed per use). */
export const DAILY_REQUESTS: Readonly<
  Record<
    AccessName,
    {
      readonly limit: number | undefined;
      readonly what: string;
      /**
       * The limit holds for everyone with this access, so a run above half of it asks first. A key
       * may be free or paid (MAKER cannot tell): its free limit is said, and asked about only when
       * the person declares it theirs.
       */
      readonly asks: boolean;
    }
  >
> = {
  'gemini-cli': {
    limit: 1000,
    what: 'Google sign-in to Gemini CLI allows about 1,000 model requests a day (AI Pro 1,500, Ultra 2,000)',
    asks: true,
  },
  key: {
    limit: 250,
    what: 'a free Gemini API key allows 250 requests a day, Flash models only (a paid key: per its tier; declare yours with --daily-limit to be asked)',
    asks: false,
  },
  vertex: {
    limit: undefined,
    what: 'Vertex AI is billed per use, with per-project quotas',
    asks: false,
  },
};

/** The per-sample success rate assumed when none was measured (`maker calibrate` measures it). */
export const ASSUMED_P = 0.9;

export interface RequestEstimate {
  readonly subtasks: number;
  /** Expected samples in one vote, by the paper's first-to-ahead-by-k formula. */
  readonly drawsPerVote: number;
  /** "Is this minimal?" votes on every node and split votes on every split. */
  readonly planner: number;
  /** Candidates for every subtask, and one integration per split. */
  readonly workers: number;
  /** Judges' ballots choosing among each subtask's candidates. */
  readonly judges: number;
  readonly total: number;
}

/**
 * Requests of a run with `subtasks` leaf subtasks (a tree of 2·subtasks − 1 nodes), margin `k` and
 * per-sample success `p`: each vote takes the expected draws of first-to-ahead-by-k.
 */
export function expectedRequests(input: {
  subtasks: number;
  k: number;
  p?: number;
}): RequestEstimate {
  const subtasks = Math.max(1, Math.round(input.subtasks));
  const draws = expectedDrawsPerSubtask(input.p ?? ASSUMED_P, input.k, { initialBatch: input.k });
  const splits = subtasks - 1;
  const nodes = subtasks + splits;
  const planner = Math.round(nodes * draws + splits * draws);
  const workers = Math.round(subtasks * draws) + splits;
  const judges = Math.round(subtasks * draws);
  return {
    subtasks,
    drawsPerVote: draws,
    planner,
    workers,
    judges,
    total: planner + workers + judges,
  };
}

/** The most subtasks a run's node cap allows (a tree of n nodes has at most (n + 1) / 2 leaves). */
export function subtasksWithin(maxNodes: number): number {
  return Math.max(1, Math.floor((maxNodes + 1) / 2));
}

export interface QuotaVerdict {
  readonly limit: number | undefined;
  readonly what: string;
  /** The run would use more than half of a day's requests (of a limit that holds): ask first. */
  readonly overHalf: boolean;
}

/** Compares a run's requests with a daily limit: the declared one, else the access's known one. */
export function quotaVerdict(
  requests: number,
  access: AccessName | undefined,
  declared?: number,
): QuotaVerdict {
  const known = access === undefined ? undefined : DAILY_REQUESTS[access];
  const limit = declared ?? known?.limit;
  const what =
    declared !== undefined
      ? `the declared daily limit is ${declared} requests`
      : (known?.what ?? 'no daily request limit is known');
  const asks = declared !== undefined || known?.asks === true;
  return { limit, what, overHalf: asks && limit !== undefined && requests > limit / 2 };
}

/** One sentence: the expected requests, split by role, and how they compare with the limit. */
export function describeRequests(estimate: RequestEstimate, verdict: QuotaVerdict): string {
  const share =
    verdict.limit === undefined
      ? ''
      : ` — ${Math.round((estimate.total / verdict.limit) * 100)}% of ${verdict.limit} a day`;
  return `${estimate.total} model requests (planner ${estimate.planner}, workers ${estimate.workers}, judges ${estimate.judges}; ${estimate.subtasks} subtasks, ${estimate.drawsPerVote.toFixed(1)} samples per vote)${share}; ${verdict.what}`;
}
