import { pooling } from '../../core/voting/behaviour.js';
import type { Run, VoteRecord } from '../../core/tree/schema.js';
import type { RealisticStats } from '../../offline/product/realistic-model.js';
import type { HiddenResult } from './hidden-tests.js';

/** How a run's votes of one kind were settled. */
export interface VoteShares {
  readonly votes: number;
  /** A class led by k among the candidates: no judge was asked. */
  readonly agreement: number;
  /** Judge ballots decided it. */
  readonly ballots: number;
  /** Neither: the `--hitl auto` policy (or a person) chose. */
  readonly chosen: number;
  readonly undecided: number;
  /** Votes whose k a narrow win raised above the run's (`core/voting/adaptive-k.ts`). */
  readonly raisedK: number;
  /** Votes in which candidates of different texts were pooled by their probe's behaviour. */
  readonly pooled: number;
  /** Votes whose winning behaviour held texts that differ: which landed was voted among them. */
  readonly textVoted: number;
  /** Votes raised past what they could settle: the decision before the raise stood. */
  readonly kStood: number;
}

/** What a run of either arm gives the totals. */
interface Counted {
  readonly hidden: Pick<HiddenResult, 'passed'>;
  readonly modelCalls: number;
  readonly tokens: number;
  readonly wallMs: number;
  readonly fake: Pick<RealisticStats, 'code' | 'unmatched'> &
    Partial<Pick<RealisticStats, 'tests' | 'probes' | 'calls'>>;
}

export interface ArmTotals {
  readonly runs: number;
  readonly passed: number;
  readonly passRate: number;
  readonly modelCalls: number;
  readonly tokens: number;
  readonly wallMs: number;
  /** Model calls and billed tokens per passing product; null when none passed. */
  readonly callsPerPassing: number | null;
  readonly tokensPerPassing: number | null;
  /** Code samples the fake wrote, by flaw (`correct`, `off-by-one`, …) or `slip:<kind>`. */
  readonly codeSamples: Record<string, number>;
  /** Ballot options and reviewed changes the fake could not tie to a sample it wrote. */
  readonly unmatched: number;
  /** The fake's answers to the acceptance-test role, by kind (`right`, `vacuous`, `none`, …). */
  readonly testAnswers: Record<string, number>;
  /** The fake's answers to the probe role, by kind (`right`, `constant`, `none`, …). */
  readonly probeAnswers: Record<string, number>;
  /**
   * Model calls by what they asked (`worker` code samples, `split` plans, `minimal` answers,
   * `ballot` judges, `review` red-flag reviews, `test` acceptance tests, `probe` probes).
   */
  readonly callsByRole: Record<string, number>;
}

/** Every count at zero. */
function noShares(): { -readonly [K in keyof VoteShares]: number } {
  return {
    votes: 0,
    agreement: 0,
    ballots: 0,
    chosen: 0,
    undecided: 0,
    raisedK: 0,
    pooled: 0,
    textVoted: 0,
    kStood: 0,
  };
}

/** How the run's votes of one kind were settled, from its state. */
export function shares(
  run: Run,
  pickVote: (n: Run['nodes'][string]) => VoteRecord | undefined,
): VoteShares {
  const counts = noShares();
  for (const n of Object.values(run.nodes)) {
    const record = pickVote(n);
    const outcome = record?.outcome;
    if (outcome === undefined || record === undefined) continue;
    counts.votes += 1;
    if (record.k !== undefined) counts.raisedK += 1;
    const p = pooling(record);
    if (p !== undefined && p.texts > p.behaviours) counts.pooled += 1;
    if (record.landed !== undefined) counts.textVoted += 1;
    if (outcome.stoodAtK !== undefined) counts.kStood += 1;
    if (outcome.status === 'human') counts.chosen += 1;
    else if (outcome.status === 'undecided') counts.undecided += 1;
    else if (record.ballots.length > 0) counts.ballots += 1;
    else counts.agreement += 1;
  }
  return counts;
}

export function addShares(all: readonly VoteShares[]): VoteShares {
  const sum = noShares();
  for (const s of all)
    for (const key of Object.keys(sum) as (keyof VoteShares)[]) sum[key] += s[key];
  return sum;
}

export function totals(runs: readonly Counted[]): ArmTotals {
  const passed = runs.filter((r) => r.hidden.passed).length;
  const codeSamples: Record<string, number> = {};
  const testAnswers: Record<string, number> = {};
  const probeAnswers: Record<string, number> = {};
  const callsByRole: Record<string, number> = {};
  for (const r of runs) {
    addCounts(callsByRole, r.fake.calls ?? {});
    addCounts(codeSamples, r.fake.code);
    addCounts(testAnswers, r.fake.tests ?? {});
    addCounts(probeAnswers, r.fake.probes ?? {});
  }
  const modelCalls = runs.reduce((s, r) => s + r.modelCalls, 0);
  const tokens = runs.reduce((s, r) => s + r.tokens, 0);
  return {
    runs: runs.length,
    passed,
    passRate: runs.length === 0 ? 0 : round(passed / runs.length),
    modelCalls,
    tokens,
    callsPerPassing: passed === 0 ? null : round(modelCalls / passed),
    tokensPerPassing: passed === 0 ? null : Math.round(tokens / passed),
    wallMs: runs.reduce((s, r) => s + r.wallMs, 0),
    codeSamples,
    unmatched: runs.reduce((s, r) => s + r.fake.unmatched, 0),
    testAnswers,
    probeAnswers,
    callsByRole,
  };
}

function addCounts(sum: Record<string, number>, counts: Readonly<Record<string, number>>): void {
  for (const [kind, n] of Object.entries(counts)) sum[kind] = (sum[kind] ?? 0) + n;
}

export const round = (x: number) => Math.round(x * 1000) / 1000;

/** `, k raised in 2 votes` for a run's progress line (nothing when none was, or for the single shot). */
export function raised(run: {
  readonly leafVotes?: VoteShares;
  readonly splitVotes?: VoteShares;
}): string {
  const n = (run.leafVotes?.raisedK ?? 0) + (run.splitVotes?.raisedK ?? 0);
  return n === 0 ? '' : `, k raised in ${n} vote${n === 1 ? '' : 's'}`;
}
