import { UsageError } from './errors.js';

/**
 * The paper's scaling laws (Meyerson et al. 2025, §3), for a two-candidate race: each valid vote is
 * correct with probability `p` > 0.5, else it goes to one alternative (the worst case). `s` steps,
 * `m` steps per subtask, margin `k`, target full-task success `t`, valid (not red-flagged) rate `v`.
 * With m > 1 the subtask succeeds with probability p^m, and that is what races.
 */

/** Probability the correct answer wins one first-to-ahead-by-k race: 1 / (1 + ((1−p)/p)^k). */
export function pSub(p: number, k: number): number {
  checkProbability('p', p);
  checkK(k);
  if (p === 1) return 1;
  if (p === 0) return 0;
  return 1 / (1 + ((1 - p) / p) ** k);
}

/** Probability every one of the s/m subtasks is decided correctly: p_sub(p^m, k)^(s/m). */
export function pFull(p: number, k: number, s: number, m = 1): number {
  checkSteps(s, m);
  return pSub(p ** m, k) ** (s / m);
}

/**
 * Smallest k for which p_full ≥ t: ⌈ln(t^(−m/s) − 1) / ln((1−p^m)/p^m)⌉, at least 1.
 * Throws a {@link UsageError} when no k can reach the target (p^m ≤ 0.5).
 */
export function kMin(p: number, s: number, t: number, m = 1): number {
  checkProbability('p', p);
  checkSteps(s, m);
  if (!(t > 0 && t < 1))
    throw new UsageError(`The target t must be strictly between 0 and 1 (got ${t}).`);
  const q = p ** m;
  if (q <= 0.5) throw new UsageError(impossibleMessage(p, m));
  if (q === 1) return 1;
  // t^(−m/s) − 1 computed as expm1 to keep precision when s is large.
  const k = Math.log(Math.expm1((-m / s) * Math.log(t))) / Math.log((1 - q) / q);
  // Guard against float noise putting an exact integer a hair above itself.
  return Math.max(1, Math.ceil(k - 1e-9));
}

/**
 * Exact expected number of valid votes until one side leads by k (gambler's ruin duration from 0
 * with absorbing barriers at ±k): k/(q−p) − (2k/(q−p))·(1−(q/p)^k)/(1−(q/p)^(2k)), and k² at p = ½.
 */
export function expectedVotes(p: number, k: number): number {
  return expectedVotesFrom(p, k, 0);
}

/**
 * Expected further valid votes until one side leads by k, starting with the correct side ahead by
 * `lead` (−k < lead < k). Gambler's ruin on 0..2k from position lead + k.
 */
export function expectedVotesFrom(p: number, k: number, lead: number): number {
  checkProbability('p', p);
  checkK(k);
  if (lead >= k || lead <= -k) return 0;
  const q = 1 - p;
  const n = 2 * k;
  const i = lead + k;
  if (p === 0 || p === 1) return p === 1 ? k - lead : k + lead;
  if (Math.abs(p - q) < 1e-12) return i * (n - i);
  const r = q / p;
  return i / (q - p) - (n / (q - p)) * ((1 - r ** i) / (1 - r ** n));
}

/**
 * Probability the correct side wins the race from `lead` (−k < lead < k) when each valid vote is
 * correct with probability p: gambler's ruin on 0..2k, (1 − r^(lead+k)) / (1 − r^(2k)), r = (1−p)/p.
 */
export function winProbabilityFrom(p: number, k: number, lead: number): number {
  checkProbability('p', p);
  checkK(k);
  if (lead >= k) return 1;
  if (lead <= -k) return 0;
  if (p === 0 || p === 1) return p;
  const i = lead + k;
  const n = 2 * k;
  if (Math.abs(2 * p - 1) < 1e-12) return i / n;
  const r = (1 - p) / p;
  return (1 - r ** i) / (1 - r ** n);
}

/**
 * Exact expected draws (flagged ones included) per subtask for the voter's schedule: an initial
 * batch of `initialBatch` parallel draws, then top-ups of k − lead. Each draw is valid with
 * probability `v` and a valid vote is correct with probability p^m. With `initialBatch` ≤ k no draw
 * can overshoot, so this equals E[votes]/v.
 */
export function expectedDrawsPerSubtask(
  p: number,
  k: number,
  options: { v?: number; m?: number; initialBatch?: number } = {},
): number {
  const { q, v, b } = schedule(p, k, options);
  if (b <= k) return expectedVotes(q, k) / v;
  // A batch larger than k can overshoot: average the continuation over the batch's outcomes.
  return b + overFirstBatch(q, v, b, (lead) => expectedVotesFrom(q, k, lead) / v);
}

/**
 * Probability the correct answer wins one subtask's vote under the voter's schedule. With
 * `initialBatch` ≤ k the voter decides exactly as the sequential rule does: {@link pSub}(p^m, k).
 * A wider first batch is counted whole before the first check, so it decides on more evidence
 * (never less often right than p_sub; k_min stays the sequential formula's, a safe side).
 */
export function pSubForSchedule(
  p: number,
  k: number,
  options: { v?: number; m?: number; initialBatch?: number } = {},
): number {
  const { q, v, b } = schedule(p, k, options);
  if (b <= k) return pSub(q, k);
  return overFirstBatch(q, v, b, (lead) => winProbabilityFrom(q, k, lead));
}

function schedule(
  p: number,
  k: number,
  options: { v?: number; m?: number; initialBatch?: number },
): { q: number; v: number; b: number } {
  const v = options.v ?? 1;
  const m = options.m ?? 1;
  const b = options.initialBatch ?? k;
  checkProbability('p', p);
  checkK(k);
  if (!(v > 0 && v <= 1)) throw new UsageError(`The valid rate v must be in (0, 1] (got ${v}).`);
  if (!Number.isInteger(b) || b < 1)
    throw new UsageError(`The initial batch must be a whole number ≥ 1 (got ${b}).`);
  return { q: p ** m, v, b };
}

/** E[f(lead after the first batch)]: b draws, each valid with probability v, each valid one right with probability q. */
function overFirstBatch(q: number, v: number, b: number, f: (lead: number) => number): number {
  let total = 0;
  for (let valid = 0; valid <= b; valid++) {
    const pValid = binomial(b, valid, v);
    if (pValid === 0) continue;
    for (let correct = 0; correct <= valid; correct++)
      total += pValid * binomial(valid, correct, q) * f(2 * correct - valid);
  }
  return total;
}

export interface Estimate {
  readonly kMin: number;
  readonly pSub: number;
  readonly pFull: number;
  readonly expectedDrawsPerStep: number;
  readonly expectedDraws: number;
  readonly expectedCost: number | undefined;
}

/**
 * Everything `maker estimate` reports: the k the paper's formula advises for the target, and what
 * running at that k is expected to achieve and cost, for the voter's schedule (`initialBatch`).
 * `expectedDrawsPerStep` is per subtask (= per step at m = 1); `expectedDraws` covers all s/m
 * subtasks.
 */
export function estimate(input: {
  p: number;
  steps: number;
  target: number;
  v?: number;
  m?: number;
  costPerSample?: number;
  k?: number;
  initialBatch?: number;
}): Estimate {
  const m = input.m ?? 1;
  const k = input.k ?? kMin(input.p, input.steps, input.target, m);
  const drawsPerSubtask = expectedDrawsPerSubtask(input.p, k, {
    v: input.v ?? 1,
    m,
    initialBatch: input.initialBatch ?? k,
  });
  const expectedDraws = drawsPerSubtask * (input.steps / m);
  const perSubtask = pSubForSchedule(input.p, k, {
    v: input.v ?? 1,
    m,
    initialBatch: input.initialBatch ?? k,
  });
  return {
    kMin: input.k === undefined ? k : kMin(input.p, input.steps, input.target, m),
    pSub: perSubtask,
    pFull: perSubtask ** (input.steps / m),
    expectedDrawsPerStep: drawsPerSubtask,
    expectedDraws,
    expectedCost:
      input.costPerSample === undefined ? undefined : expectedDraws * input.costPerSample,
  };
}

function binomial(n: number, x: number, p: number): number {
  let coefficient = 1;
  for (let i = 1; i <= x; i++) coefficient = (coefficient * (n - x + i)) / i;
  return coefficient * p ** x * (1 - p) ** (n - x);
}

function impossibleMessage(p: number, m: number): string {
  const per = m === 1 ? `p = ${p}` : `p^m = ${p}^${m} = ${(p ** m).toPrecision(4)}`;
  return `No k reaches the target: voting only converges on the right answer when a subtask is right more often than not, and ${per} ≤ 0.5. Decompose further (smaller m) or use a more reliable model.`;
}

function checkProbability(name: string, value: number): void {
  if (!(value >= 0 && value <= 1))
    throw new UsageError(`${name} must be a probability in [0, 1] (got ${value}).`);
}

function checkK(k: number): void {
  if (!Number.isInteger(k) || k < 1)
    throw new UsageError(`k must be a whole number ≥ 1 (got ${k}).`);
}

function checkSteps(s: number, m: number): void {
  if (!(s >= 1) || !Number.isFinite(s))
    throw new UsageError(`The step count must be ≥ 1 (got ${s}).`);
  if (!Number.isInteger(m) || m < 1)
    throw new UsageError(`m must be a whole number ≥ 1 (got ${m}).`);
}
