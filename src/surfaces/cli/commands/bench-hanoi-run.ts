import { readSettings } from '../../../app/settings.js';
import { ConfigError } from '../../../core/errors.js';
import { initialCandidates } from '../../../core/tree/presets.js';
import type { LanguageModel } from '../../../ports/language-model.js';
import { runHanoiBench, type HanoiBenchReport } from '../../bench/hanoi-bench.js';
import { ACCESS_HOW } from '../../../app/wiring/model-access.js';
import { exactSamplingModel } from '../../../app/workers/gemini-model.js';
import { formatCount, progressLine, type CliIo } from '../io.js';
import type { benchHanoiCommand } from './bench-hanoi.js';
import type { CliContext, InputOf } from '../define.js';

/** `maker bench hanoi`, loaded when it runs (see bench-hanoi.ts for its options and help). */
export async function run(
  { options: o }: InputOf<typeof benchHanoiCommand>,
  { io, signal }: CliContext,
): Promise<number> {
  const k = o.k ?? 3;
  const initialBatch =
    o.initial === undefined || o.initial === 'k'
      ? k
      : /^2k/.test(o.initial)
        ? initialCandidates(k)
        : Number(o.initial);
  const modelName = o.model ?? 'sim';
  const model = modelName === 'sim' ? ('sim' as const) : geminiModel(modelName, io);
  const progress = progressLine(io, 'hanoi: step');
  const report = await runHanoiBench({
    disks: o.disks ?? 20,
    k,
    model,
    p: o.p ?? 0.9978,
    v: o.v ?? 0.995,
    seed: o.seed ?? 1,
    initialBatch,
    ...(o.maxDraws === undefined ? {} : { maxDraws: o.maxDraws }),
    ...(o.steps === undefined ? {} : { steps: o.steps }),
    ...(o.thinkingBudget === undefined ? {} : { thinkingBudget: o.thinkingBudget }),
    reference: o.reference !== false,
    ...(signal === undefined ? {} : { signal }),
    onProgress: (done, total) => progress.update(done, total),
  });
  progress.done();
  io.stdout(o.json === true ? `${JSON.stringify(report)}\n` : humanReport(report));
  return report.solved ? 0 : 1;
}

/**
 * The benchmark's Gemini model through the access a run would use: a key or Vertex AI. Not Gemini
 * CLI: the benchmark measures a model at exact sampling settings (temperature, thinking budget),
 * which Gemini CLI takes no option for.
 */
function geminiModel(name: string, io: CliIo): LanguageModel {
  const model = exactSamplingModel(name, readSettings(io.env));
  if (model === undefined)
    throw new ConfigError(
      `--model ${name} needs GEMINI_API_KEY in the environment, or Vertex AI (${ACCESS_HOW.vertex}); not Gemini CLI: the benchmark measures a model at exact sampling settings (temperature and thinking budget), which Gemini CLI cannot set on its calls. Or use --model sim, which is offline.`,
    );
  return model;
}

function humanReport(r: HanoiBenchReport): string {
  const lines: string[] = [];
  const model = r.model === 'sim' ? `sim (p = ${r.p}, v = ${r.v}, seed ${r.seed})` : r.model;
  lines.push(
    `Towers of Hanoi, ${r.disks} disks: ${formatCount(r.steps)} steps, k = ${r.k}, first batch ${r.initialBatch}, model ${model}`,
  );
  if (r.solved) lines.push('Solved with zero errors.');
  else lines.push(`NOT solved: ${failureReasons(r).join('; then ')}.`);
  lines.push(
    `  samples           ${formatCount(r.samples)} (${formatCount(r.validSamples)} valid, ${formatCount(r.flagged)} red-flagged)`,
  );
  const theory =
    r.theory === null
      ? ''
      : ` (theory ${r.theory.validVotesPerStep}, ratio ${r.validVotesVsTheory})`;
  lines.push(`  valid votes/step  ${r.validVotesPerStep}${theory}`);
  lines.push(`  max draws/step    ${r.maxDrawsPerStep} (max rounds ${r.maxRoundsPerStep})`);
  lines.push(
    `  collisions        ${formatCount(r.collisions)} step(s) whose first two valid votes were both wrong`,
  );
  if (r.undecidedAfterRound.length > 0)
    lines.push(
      `  undecided after round: ${r.undecidedAfterRound
        .slice(0, 12)
        .map((n, i) => `${i + 1}: ${formatCount(n)}`)
        .join('  ')}${r.undecidedAfterRound.length > 12 ? '  …' : ''}`,
    );
  lines.push(
    `  wall              ${(r.wallMs / 1000).toFixed(2)} s, ${formatCount(r.samplesPerSecond)} samples/s, peak RSS ${r.peakRssMb} MB`,
  );
  if (r.reference !== null)
    lines.push(
      `  reference loop    ${(r.reference.wallMs / 1000).toFixed(2)} s (voter overhead ratio ${r.reference.ratio})`,
    );
  if (r.theory !== null) lines.push(`  theory: P(solved) = ${r.theory.pFull} at this p and k`);
  return `${lines.join('\n')}\n`;
}

function failureReasons(r: HanoiBenchReport): string[] {
  const why: string[] = [];
  if (r.errors > 0)
    why.push(
      `${formatCount(r.errors)} step(s) decided wrongly (first at step ${formatCount(r.errorSteps[0] ?? 0)})`,
    );
  if (r.stoppedEarly !== undefined)
    why.push(`stopped at step ${formatCount(r.stoppedEarly.step)}: ${r.stoppedEarly.reason}`);
  if (why.length === 0) why.push('the final state is not the goal');
  return why;
}
