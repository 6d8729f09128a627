import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MakerError, UsageError } from '../../core/errors.js';
import { DEFAULT_EDIT_FORMAT, type EditFormat } from '../../core/edit-formats.js';
import { summarise } from '../../core/view/summary.js';
import {
  billedTokens,
  type GenerateRequest,
  type GenerateResult,
  type LanguageModel,
} from '../../ports/language-model.js';
import { PRODUCT_IDEAS, QUICK_IDEAS } from '../../offline/product/ideas/index.js';
import {
  RealisticModel,
  type RealisticKnobs,
  type RealisticStats,
} from '../../offline/product/realistic-model.js';
import type { ProductIdea } from '../../offline/product/types.js';
import { engineFor, openWorkspace, runConfig } from '../../app/wiring/wiring.js';
import { WORKERS } from '../../app/workers/index.js';
import { readSettings } from '../../app/settings.js';
import { runHiddenTests, type HiddenResult } from './hidden-tests.js';
import {
  diagnose,
  shapeCounts,
  wrongWinners,
  type FailureShape,
  type RunDiagnosis,
  type WrongWinner,
} from './product-shapes.js';
import { singleShot } from './product-single-shot.js';
import {
  addShares,
  raised,
  round,
  shares,
  totals,
  type ArmTotals,
  type VoteShares,
} from './product-totals.js';

export type { ArmTotals, VoteShares } from './product-totals.js';

export interface ProductBenchOptions {
  /** Idea names; default all (with `quick`, the quick pair). */
  readonly ideas?: readonly string[] | undefined;
  readonly p: number;
  readonly slip: number;
  readonly judgeAccuracy: number;
  readonly seed: number;
  /** Runs of each idea per arm, each with its own seed (seed, seed + 1, …). */
  readonly runs: number;
  /** How the gemini worker asks for files, in both arms (default: the worker's default). */
  readonly editFormat?: EditFormat | undefined;
  /** A progress line per finished run (stderr). */
  readonly progress?: (line: string) => void;
}

export interface ArmRun {
  readonly idea: string;
  readonly arm: 'maker' | 'single';
  readonly seed: number;
  /** The run's end (`done`, `failed`, …), or `built` for the single shot. */
  readonly status: string;
  /** Something landed (a tree to test). */
  readonly landed: boolean;
  readonly hidden: Omit<HiddenResult, 'tail'>;
  readonly modelCalls: number;
  readonly tokens: number;
  readonly wallMs: number;
  readonly error?: string;
  readonly leafVotes?: VoteShares;
  readonly splitVotes?: VoteShares;
  /** What the fake model wrote: code samples by flaw or slip, plans right and wrong. */
  readonly fake: Pick<
    RealisticStats,
    'code' | 'plans' | 'unmatched' | 'tests' | 'probes' | 'calls'
  >;
  /** MAKER's: why its product failed, if it did, and the wrong winners it landed. */
  readonly diagnosis?: RunDiagnosis;
}

export interface ProductBenchReport {
  readonly knobs: Omit<RealisticKnobs, 'ideas'> & {
    readonly runs: number;
    readonly editFormat: EditFormat;
  };
  readonly ideas: readonly string[];
  readonly runs: readonly ArmRun[];
  readonly maker: ArmTotals & {
    readonly leafVotes: VoteShares;
    readonly splitVotes: VoteShares;
    /** Share of decided leaf votes settled by agreement (no ballots); null with none. */
    readonly agreementShare: number | null;
    /** Failed products by why they failed (see `product-shapes.ts`). */
    readonly shapes: Record<FailureShape, number>;
    /** Runs that stopped for a decision only a person can make, and of those, with an upstream cause. */
    readonly haltedForPerson: number;
    readonly upstreamHalts: number;
  };
  readonly single: ArmTotals;
  /** MAKER's pass rate over the single shot's; null when the single shot passed none. */
  readonly ratio: number | null;
  /** MAKER's model calls per passing product over the single shot's; null when either passed none. */
  readonly callRatio: number | null;
}

/** Counts every call and billed token that reaches the model. */
class CountingModel implements LanguageModel {
  readonly id: string;
  calls = 0;
  tokens = 0;
  constructor(readonly inner: LanguageModel) {
    this.id = inner.id;
  }
  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const result = await this.inner.generate(request);
    this.calls += result.requests ?? 1;
    this.tokens += billedTokens(result);
    return result;
  }
}

/** The ideas a bench runs, by name; an unknown name is a usage error naming the known ones. */
export function chooseIdeas(names: readonly string[] | undefined, quick: boolean): ProductIdea[] {
  const wanted = names ?? (quick ? QUICK_IDEAS : PRODUCT_IDEAS.map((i) => i.name));
  const unknown = wanted.filter((n) => !PRODUCT_IDEAS.some((i) => i.name === n));
  if (unknown.length > 0)
    throw new UsageError(
      `Unknown idea${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}: the built-in ones are ${PRODUCT_IDEAS.map((i) => i.name).join(', ')}.`,
    );
  return PRODUCT_IDEAS.filter((i) => wanted.includes(i.name));
}

/**
 * `maker bench product`: each idea through MAKER as it runs by default (the real engine and
 * its gemini worker on a real git repository in a temp directory, questions answered by the
 * `--hitl auto` policy, the realistic fake as the model) and through the single-shot baseline;
 * the hidden acceptance tests run on the tree each one lands.
 */
export async function runProductBench(options: ProductBenchOptions): Promise<ProductBenchReport> {
  const ideas = chooseIdeas(options.ideas, false);
  const knobs = { p: options.p, slip: options.slip, judgeAccuracy: options.judgeAccuracy };
  const editFormat = options.editFormat ?? DEFAULT_EDIT_FORMAT;
  const runs: ArmRun[] = [];
  for (const idea of ideas)
    for (let r = 0; r < options.runs; r++) {
      const seed = options.seed + r;
      for (const arm of ['maker', 'single'] as const) {
        const result = await runArm(arm, idea, { ...knobs, seed }, editFormat);
        runs.push(result);
        options.progress?.(
          `${idea.name} seed ${seed} ${arm}: ${result.hidden.passed ? 'PASS' : 'fail'} (${result.status}, ${result.modelCalls} calls${raised(result)}, ${result.wallMs} ms)${result.error === undefined ? '' : `: ${result.error.slice(0, 200)}`}`,
        );
      }
    }
  const maker = totals(runs.filter((r) => r.arm === 'maker'));
  const single = totals(runs.filter((r) => r.arm === 'single'));
  const leafVotes = addShares(
    runs.flatMap((r) => (r.leafVotes === undefined ? [] : [r.leafVotes])),
  );
  const splitVotes = addShares(
    runs.flatMap((r) => (r.splitVotes === undefined ? [] : [r.splitVotes])),
  );
  const decided = leafVotes.agreement + leafVotes.ballots;
  const perPassing = (arm: ArmTotals) => arm.callsPerPassing;
  const makerCalls = perPassing(maker);
  const singleCalls = perPassing(single);
  return {
    knobs: { ...knobs, seed: options.seed, runs: options.runs, editFormat },
    ideas: ideas.map((i) => i.name),
    runs,
    maker: {
      ...maker,
      leafVotes,
      splitVotes,
      agreementShare: decided === 0 ? null : round(leafVotes.agreement / decided),
      ...shapeCounts(runs.filter((r) => r.arm === 'maker')),
    },
    single,
    ratio: single.passRate === 0 ? null : round(maker.passRate / single.passRate),
    callRatio: makerCalls === null || singleCalls === null ? null : round(makerCalls / singleCalls),
  };
}

/** One run of `idea` through one arm, in a temp directory: what it built, and what the hidden tests made of it. */
async function runArm(
  arm: 'maker' | 'single',
  idea: ProductIdea,
  knobs: Omit<RealisticKnobs, 'ideas'>,
  editFormat: EditFormat,
): Promise<ArmRun> {
  const fake = new RealisticModel(knobs);
  const model = new CountingModel(fake);
  const dir = await mkdtemp(join(tmpdir(), `maker-bench-product-${arm}-`));
  const product = join(dir, 'product');
  const started = performance.now();
  try {
    const built =
      arm === 'maker'
        ? await makerRun({ model, fake }, idea, join(dir, 'repo'), product, knobs.seed, editFormat)
        : await singleShotRun(model, idea, product, knobs.seed, editFormat);
    const wallMs = Math.round(performance.now() - started);
    const hidden = await hiddenTestsOf(built.landed, product, idea);
    const diagnosis =
      built.wrong === undefined
        ? undefined
        : await diagnose({ status: built.status, error: built.error }, built.wrong, idea, {
            landed: built.landed,
            passed: hidden.passed,
            product,
          });
    return {
      idea: idea.name,
      arm,
      seed: knobs.seed,
      status: built.status,
      landed: built.landed,
      hidden,
      modelCalls: model.calls,
      tokens: model.tokens,
      wallMs,
      ...(built.error === undefined ? {} : { error: built.error }),
      ...built.votes,
      fake: fakeStats(fake),
      ...(diagnosis === undefined ? {} : { diagnosis }),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** What an arm built: how it ended, whether a tree landed, and (MAKER's) its votes and wrong winners. */
interface Built {
  readonly status: string;
  readonly landed: boolean;
  readonly error?: string | undefined;
  readonly votes: Pick<ArmRun, 'leafVotes' | 'splitVotes'>;
  readonly wrong?: WrongWinner[];
}

/** The single-shot baseline, written into `product`: it always lands (`built`), maybe with an error. */
async function singleShotRun(
  model: LanguageModel,
  idea: ProductIdea,
  product: string,
  seed: number,
  editFormat: EditFormat,
): Promise<Built> {
  await mkdir(product, { recursive: true });
  const error = await singleShot(
    model,
    idea.idea,
    product,
    `single-${idea.name}-${seed}`,
    editFormat,
  );
  return { status: 'built', landed: true, error, votes: {} };
}

/** The hidden acceptance tests on `product` (without their output), or none passed when nothing landed. */
async function hiddenTestsOf(
  landed: boolean,
  product: string,
  idea: ProductIdea,
): Promise<Omit<HiddenResult, 'tail'>> {
  const hidden: Omit<HiddenResult, 'tail'> = landed
    ? await runHiddenTests(product, idea)
    : { passed: false, tests: 0, failed: 0, timedOut: false };
  return {
    passed: hidden.passed,
    tests: hidden.tests,
    failed: hidden.failed,
    timedOut: hidden.timedOut,
  };
}

/** What the fake model wrote, as an {@link ArmRun} reports it. */
function fakeStats(fake: RealisticModel): ArmRun['fake'] {
  return {
    code: fake.stats.code,
    plans: fake.stats.plans,
    unmatched: fake.stats.unmatched,
    tests: fake.stats.tests,
    probes: fake.stats.probes,
    calls: fake.stats.calls,
  };
}

/**
 * One MAKER run as `maker run --worker gemini --hitl auto` makes it (its worker asking for files
 * in `editFormat`), its result exported to `product`.
 */
async function makerRun(
  { model, fake }: { readonly model: LanguageModel; readonly fake: RealisticModel },
  idea: ProductIdea,
  repo: string,
  product: string,
  seed: number,
  editFormat: EditFormat,
): Promise<Built & { readonly wrong: WrongWinner[] }> {
  await mkdir(repo, { recursive: true });
  const workspace = await openWorkspace(repo, true, {
    // The machine's sandbox; nothing of this process's environment reaches the checks.
    env: {},
    sandbox: readSettings(process.env).sandbox,
  });
  try {
    const config = runConfig({
      worker: 'gemini',
      hitl: 'auto',
      seed,
      defaultBranch: await workspace.currentBranch(),
    });
    const roles = await WORKERS.gemini.roles(config, workspace, readSettings({}), {
      model,
      editFormat,
    });
    const engine = engineFor(repo, workspace, roles, { secrets: [], env: {} });
    const runId = await engine.create(idea.idea, config);
    const outcome = await engine.run(runId);
    const run = await engine.getRun(runId);
    const summary = summarise(run);
    const commit = summary.landed ? summary.finalCommit : null;
    if (commit !== null) await exportTree(repo, commit, product);
    return {
      status: outcome.status,
      landed: commit !== null,
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
      votes: {
        leafVotes: shares(run, (n) => (n.kind === 'leaf' ? n.leaf : undefined)),
        splitVotes: shares(run, (n) => n.split),
      },
      wrong: await wrongWinners(run, workspace, fake),
    };
  } finally {
    await workspace.close();
  }
}

/** Writes the tree of `commit` into `dir`: `git archive` piped into `tar`, both spawned directly. */
async function exportTree(repo: string, commit: string, dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await new Promise<void>((resolve, reject) => {
    const git = spawn('git', ['-C', repo, 'archive', '--format=tar', commit], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const tar = spawn('tar', ['-x', '-C', dir], { stdio: ['pipe', 'ignore', 'pipe'] });
    git.stdout.pipe(tar.stdin);
    let failed = '';
    git.stderr.on('data', (d: Buffer) => (failed += d.toString()));
    tar.stderr.on('data', (d: Buffer) => (failed += d.toString()));
    git.on('error', reject);
    tar.on('error', reject);
    tar.on('close', (code) =>
      code === 0
        ? resolve()
        : reject(
            new MakerError(
              'bench-failed',
              `exporting ${commit} (git archive | tar) failed: ${failed}`,
            ),
          ),
    );
  });
}
