import { expectedDrawsPerSubtask, pSubForSchedule } from '../../core/math.js';
import { stepCount } from '../../core/hanoi/hanoi.js';
import { hanoiSimAgent } from '../../adapters/sim/hanoi-sim.js';
import type { LanguageModel } from '../../ports/language-model.js';
import { languageModelAgent } from '../../engine/hanoi/agent.js';
import { solveHanoi, type SolveHanoiReport } from '../../engine/hanoi/solve.js';
import { referenceHanoiLoop } from './hanoi-reference.js';

export interface HanoiBenchOptions {
  readonly disks: number;
  readonly k: number;
  /** `sim`, or a language model to run the paper's prompts through. */
  readonly model: 'sim' | LanguageModel;
  readonly p: number;
  readonly v: number;
  readonly seed: number;
  readonly initialBatch?: number;
  readonly maxDraws?: number;
  readonly steps?: number;
  /** Real models: thinking-token budget per call (0 = no thinking, like the paper's model). */
  readonly thinkingBudget?: number;
  /** Also time the bare synchronous reference loop (sim only). */
  readonly reference: boolean;
  readonly signal?: AbortSignal;
  readonly onProgress?: (done: number, total: number) => void;
  /** Injected clock and memory probe (tests pin them). */
  readonly now?: () => number;
  readonly peakRssBytes?: () => number;
}

export interface HanoiBenchReport extends SolveHanoiReport {
  readonly model: string;
  readonly p: number | null;
  readonly v: number | null;
  readonly seed: number | null;
  readonly wallMs: number;
  readonly samplesPerSecond: number;
  readonly peakRssMb: number;
  /** What the two-candidate theory predicts for this run (sim only). */
  readonly theory: {
    readonly validVotesPerStep: number;
    readonly validVotes: number;
    readonly drawsPerStep: number;
    readonly pFull: number;
  } | null;
  readonly validVotesPerStep: number;
  /** Measured valid votes over the theoretical expectation (1 = exact). */
  readonly validVotesVsTheory: number | null;
  readonly reference: {
    readonly wallMs: number;
    readonly samples: number;
    readonly ratio: number;
  } | null;
}

/** `maker bench hanoi`: the paper's million-step benchmark, measured. */
export async function runHanoiBench(options: HanoiBenchOptions): Promise<HanoiBenchReport> {
  const now = options.now ?? (() => performance.now());
  const peakRss = options.peakRssBytes ?? (() => process.resourceUsage().maxRSS * 1024);
  const isSim = options.model === 'sim';
  const makeAgent = () =>
    options.model === 'sim'
      ? hanoiSimAgent({ seed: options.seed, p: options.p, v: options.v })
      : languageModelAgent(
          options.model,
          options.thinkingBudget === undefined ? {} : { thinkingBudget: options.thinkingBudget },
        );
  const initialBatch = options.initialBatch ?? options.k;

  const started = now();
  const report = await solveHanoi({
    disks: options.disks,
    k: options.k,
    agent: makeAgent(),
    initialBatch,
    ...(options.maxDraws === undefined ? {} : { maxDraws: options.maxDraws }),
    ...(options.steps === undefined ? {} : { steps: options.steps }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
  });
  const wallMs = now() - started;

  let reference: HanoiBenchReport['reference'] = null;
  if (options.reference && isSim) {
    const refStarted = now();
    const ref = referenceHanoiLoop(
      options.disks,
      options.k,
      report.stepsDone,
      makeAgent(),
      initialBatch,
    );
    const refMs = now() - refStarted;
    reference = {
      wallMs: round(refMs),
      samples: ref.samples,
      ratio: round(wallMs / Math.max(refMs, 1e-6), 3),
    };
  }

  const steps = report.stepsDone;
  const schedule = { v: options.v, initialBatch };
  const theoryDrawsPerStep = expectedDrawsPerSubtask(options.p, options.k, schedule);
  // Each draw is valid with probability v whatever came before (Wald): E[votes] = v·E[draws].
  const theoryVotesPerStep = theoryDrawsPerStep * options.v;
  const theory = isSim
    ? {
        validVotesPerStep: round(theoryVotesPerStep, 4),
        validVotes: Math.round(theoryVotesPerStep * steps),
        drawsPerStep: round(theoryDrawsPerStep, 4),
        pFull: round(
          pSubForSchedule(options.p, options.k, schedule) ** stepCount(options.disks),
          4,
        ),
      }
    : null;
  const validVotesPerStep = steps === 0 ? 0 : report.validSamples / steps;
  return {
    ...report,
    model: options.model === 'sim' ? 'sim' : options.model.id,
    p: isSim ? options.p : null,
    v: isSim ? options.v : null,
    seed: isSim ? options.seed : null,
    wallMs: round(wallMs),
    samplesPerSecond: Math.round(report.samples / Math.max(wallMs / 1000, 1e-9)),
    peakRssMb: round(peakRss() / (1024 * 1024), 1),
    theory,
    validVotesPerStep: round(validVotesPerStep, 4),
    validVotesVsTheory:
      isSim && steps > 0 ? round(validVotesPerStep / theoryVotesPerStep, 4) : null,
    reference,
  };
}

function round(x: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
