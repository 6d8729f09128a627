import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { GitWorkspace } from '../adapters/git/git-workspace.js';
import { inspectRepository } from '../adapters/git/inspect.js';
import { findSandbox, sandboxChoiceProblem } from '../adapters/sandbox/bwrap.js';
import { CoderSimModel } from '../adapters/sim/coder-sim.js';
import { classCount, recommend, votedAccuracy, wilson } from '../core/calibration.js';
import { ConfigError, UsageError } from '../core/errors.js';
import { CALIBRATION_FILE_NAME } from '../core/workspace-files.js';
import { sampleSuite, type RecordedSample } from '../engine/calibration/calibrate.js';
import { CALIBRATION_SUITE } from '../engine/calibration/suite.js';
import { LlmPlanner } from '../engine/models/llm-planner.js';
import { LlmWorker } from '../engine/models/llm-worker.js';
import type { Settings } from './settings.js';
import { settleAccess } from './start/access-check.js';
import { geminiModel, type RunModel } from './workers/gemini-model.js';
import { geminiNeeds } from './workers/gemini.js';
import { DEFAULT_MODEL } from './workers/index.js';
import { openWorkspace } from './wiring/wiring.js';

export { CALIBRATION_FILE_NAME };
const VERSION = 1;
const KS = [1, 2, 3, 4, 5] as const;

export interface CalibrateOptions {
  /** `sim` or a Gemini model name. */
  readonly model: string;
  readonly samples: number;
  /** Only the first this many subtasks of the suite (default all). */
  readonly tasks?: number | undefined;
  readonly target: number;
  readonly steps: number;
  readonly seed: number;
  readonly concurrency: number;
  /** Sim only: per-sample success and valid rates. */
  readonly p?: number | undefined;
  readonly v?: number | undefined;
  readonly settings: Settings;
  readonly signal?: AbortSignal | undefined;
  readonly onSample?: (done: number, total: number) => void;
}

const voteSchema = z.object({
  k: z.number().int(),
  correct: z.number(),
  undecided: z.number(),
  drawsPerSubtask: z.number(),
});

export const calibrationSchema = z.object({
  $schemaVersion: z.literal(VERSION),
  model: z.string(),
  simulated: z.boolean(),
  measuredAt: z.string(),
  seed: z.number().int(),
  tasks: z.number().int(),
  samplesPerTask: z.number().int(),
  samples: z.number().int(),
  validSamples: z.number().int(),
  correctSamples: z.number().int(),
  /** Share of valid samples whose hidden test passes, with its 95% Wilson interval. */
  p: z.number(),
  pLow: z.number(),
  pHigh: z.number(),
  /** Share of samples that parse and pass every red flag, with its 95% Wilson interval. */
  v: z.number(),
  vLow: z.number(),
  vHigh: z.number(),
  target: z.number(),
  steps: z.number().int(),
  recommendedK: z.number().int().nullable(),
  expectedSamplesPerSubtask: z.number().nullable(),
  pFull: z.number().nullable(),
  tokensPerSample: z.number(),
  expectedTokensPerSubtask: z.number().nullable(),
  votes: z.array(voteSchema),
  flags: z.record(z.string(), z.number().int()),
  perTask: z.array(
    z.object({
      id: z.string(),
      samples: z.number().int(),
      valid: z.number().int(),
      correct: z.number().int(),
      /**
       * Distinct texts (trees) among the valid samples, and the vote classes they fall into by a
       * run's rule: right answers written differently are one class. Absent in older files.
       */
      answers: z.number().int().optional(),
      classes: z.number().int().optional(),
    }),
  ),
});
export type Calibration = z.infer<typeof calibrationSchema>;

/**
 * `maker calibrate`: samples the built-in suite through the gemini worker's path (or the seeded
 * sim), runs hidden tests sandboxed, and measures p, v, voted accuracy for k = 1…5 and the k the
 * paper's formulas advise. Refused, before any call, without a sandbox or a key.
 */
export async function calibrate(options: CalibrateOptions): Promise<Calibration> {
  const simulated = options.model === 'sim';
  if (!simulated && (options.p !== undefined || options.v !== undefined))
    throw new UsageError('--p and --v set the simulated model: use them with --model sim only.');
  const { settings } = options;
  const problems = simulated ? [] : geminiNeeds(settings.model, 'maker calibrate samples Gemini');
  const choiceProblem = sandboxChoiceProblem(settings.sandbox.choice);
  if (choiceProblem !== undefined) problems.push(choiceProblem);
  else if ((await findSandbox(settings.sandbox.path, settings.sandbox.choice)) === undefined)
    problems.push(
      'maker calibrate runs the hidden tests on code a model wrote, so only inside a sandbox (no network, no writes outside a scratch checkout), and none works here (bubblewrap, or util-linux unshare). Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap).',
    );
  if (problems.length > 0)
    throw new ConfigError(
      `maker calibrate cannot start:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
  // The access a run here would use (a Gemini CLI checked signed in first, creating nothing).
  const access = simulated
    ? undefined
    : await settleAccess({ simulated: false }, options.model, settings, options.signal);
  const model: RunModel = simulated
    ? new CoderSimModel(
        new Map(CALIBRATION_SUITE.map((t) => [t.id, { right: t.solution, wrong: t.wrong }])),
        { p: options.p ?? 0.9, v: options.v ?? 0.95, seed: options.seed },
      )
    : geminiModel(
        {
          model: options.model,
          concurrency: options.concurrency,
          ...(access === undefined ? {} : { modelAccess: access.access }),
        },
        settings,
      );
  const suite = CALIBRATION_SUITE.slice(0, options.tasks ?? CALIBRATION_SUITE.length);
  const scratch = await mkdtemp(join(tmpdir(), 'maker-calibrate-'));
  let workspace: GitWorkspace | undefined;
  try {
    workspace = await GitWorkspace.open(scratch, { create: true });
    const samples = await sampleSuite(
      {
        workspace,
        planner: new LlmPlanner(model),
        worker: new LlmWorker(model, workspace),
        secrets: settings.secrets,
        signal: options.signal ?? new AbortController().signal,
        ...(simulated ? {} : { model: options.model }),
      },
      suite,
      {
        samples: options.samples,
        concurrency: options.concurrency,
        ...(options.onSample === undefined ? {} : { onSample: options.onSample }),
      },
    );
    return summarise(samples, {
      model: simulated ? 'sim' : options.model,
      simulated,
      seed: options.seed,
      target: options.target,
      steps: options.steps,
      samplesPerTask: options.samples,
    });
  } finally {
    await workspace?.close();
    await model.close?.();
    await rm(scratch, { recursive: true, force: true });
  }
}

function summarise(
  samples: readonly (readonly RecordedSample[])[],
  meta: Pick<Calibration, 'model' | 'simulated' | 'seed' | 'target' | 'steps' | 'samplesPerTask'>,
): Calibration {
  const all = samples.flat();
  const valid = all.filter((s) => s.valid);
  const correct = valid.filter((s) => s.correct);
  const v = all.length === 0 ? 0 : valid.length / all.length;
  const p = valid.length === 0 ? 0 : correct.length / valid.length;
  const pI = wilson(correct.length, valid.length);
  const vI = wilson(valid.length, all.length);
  const advice = recommend(
    { samples: all.length, valid: valid.length, correct: correct.length },
    meta.steps,
    meta.target,
  );
  const tokensPerSample = all.length === 0 ? 0 : all.reduce((t, s) => t + s.tokens, 0) / all.length;
  const flags: Record<string, number> = {};
  for (const s of all) for (const rule of s.flags) flags[rule] = (flags[rule] ?? 0) + 1;
  return {
    $schemaVersion: VERSION,
    ...meta,
    measuredAt: new Date().toISOString(),
    tasks: samples.length,
    samples: all.length,
    validSamples: valid.length,
    correctSamples: correct.length,
    p,
    pLow: pI.low,
    pHigh: pI.high,
    v,
    vLow: vI.low,
    vHigh: vI.high,
    recommendedK: advice.k,
    expectedSamplesPerSubtask: advice.expectedSamplesPerSubtask,
    pFull: advice.pFull,
    tokensPerSample,
    expectedTokensPerSubtask:
      advice.expectedSamplesPerSubtask === null
        ? null
        : advice.expectedSamplesPerSubtask * tokensPerSample,
    votes: KS.map((k) => votedAccuracy(samples, k, { seed: meta.seed })),
    flags,
    perTask: samples.map((list, i) => ({
      id: CALIBRATION_SUITE[i]?.id ?? String(i),
      samples: list.length,
      valid: list.filter((s) => s.valid).length,
      correct: list.filter((s) => s.correct).length,
      answers: new Set(list.flatMap((s) => (s.valid && s.tree !== undefined ? [s.tree] : []))).size,
      classes: classCount(list),
    })),
  };
}

/** Writes the calibration beside the workspace's state. */
export async function saveCalibration(
  dir: string,
  calibration: Calibration,
  settings: Settings,
): Promise<{ file: string; inGit: boolean }> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, CALIBRATION_FILE_NAME);
  await writeFile(file, `${JSON.stringify(calibration, null, 2)}\n`);
  // Opening the workspace keeps MAKER's files out of git (.git/info/exclude): only in a repository.
  const inGit = (await inspectRepository(dir)).kind === 'repository';
  if (inGit) await (await openWorkspace(dir, false, settings)).close();
  return { file, inGit };
}

/**
 * The k a workspace's calibration advises for `model` (`maker run --confidence auto`), with a line
 * saying where it comes from. Refused, naming the fix, when there is none, it is for another
 * model, or it found no k.
 */
export async function calibratedK(
  dir: string,
  model: string,
): Promise<{ k: number; note: string }> {
  const file = join(dir, CALIBRATION_FILE_NAME);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new UsageError(
      `--confidence auto uses the k measured by \`maker calibrate\`, and ${file} does not exist: run \`maker calibrate --model ${model} --dir ${dir}\` first, or choose --confidence low|medium|high.`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = calibrationSchema.safeParse(json);
  if (!parsed.success)
    throw new UsageError(
      `${file} is not a calibration this version of maker reads: run \`maker calibrate\` again.`,
    );
  const c = parsed.data;
  if (c.model !== model)
    throw new UsageError(
      `${file} measured ${c.model}, not ${model}: run \`maker calibrate --model ${model}\`, or run with --model ${c.model}.`,
    );
  if (c.recommendedK === null)
    throw new UsageError(
      `${file} found no k that reaches its target: ${noKReason(c)} Or choose --k yourself.`,
    );
  return {
    k: c.recommendedK,
    note: `k = ${c.recommendedK} from ${CALIBRATION_FILE_NAME} (${c.model}, measured ${c.measuredAt.slice(0, 10)}: p = ${c.p.toFixed(3)}, at least ${c.pLow.toFixed(3)}, v = ${c.v.toFixed(3)}, target ${c.target} over ${c.steps} subtasks)`,
  };
}

/** Why a calibration advises no k, and what to do about it. */
export function noKReason(c: Pick<Calibration, 'p' | 'pLow' | 'model'>): string {
  return c.p > 0.5
    ? `p = ${c.p.toFixed(3)} for ${c.model}, but its 95% interval reaches down to ${c.pLow.toFixed(3)} ≤ 0.5, so the samples do not show that voting converges on right answers. Take more samples (--tasks, --samples), or use a stronger model.`
    : `p = ${c.p.toFixed(3)} ≤ 0.5 for ${c.model}, so voting converges on wrong answers. Use a stronger model or smaller subtasks.`;
}

export { DEFAULT_MODEL };
