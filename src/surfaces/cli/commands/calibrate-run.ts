import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from '../../../core/errors.js';
import {
  CALIBRATION_FILE_NAME,
  DEFAULT_MODEL,
  calibrate,
  noKReason,
  saveCalibration,
  type Calibration,
} from '../../../app/calibration.js';
import { progressLine } from '../io.js';
import type { calibrateCommand } from './calibrate.js';
import { readSettings } from '../../../app/settings.js';
import type { CliContext, InputOf } from '../define.js';

/** `maker calibrate`, loaded when it runs (see calibrate.ts for its options and help). */
export async function run(
  { options: o }: InputOf<typeof calibrateCommand>,
  cli: CliContext,
): Promise<number> {
  const { io, signal } = cli;
  const settings = readSettings(io.env, { modelAccess: o.modelAccess }, io.secrets);
  const dir = resolve(io.cwd, o.dir ?? '.');
  if ((await stat(dir).catch(() => undefined))?.isDirectory() === false)
    throw new UsageError(`--dir ${dir} is a file, not a directory.`);
  const progress = progressLine(io, 'calibrate: sample');
  const result = await calibrate({
    model: o.model ?? DEFAULT_MODEL,
    samples: o.samples ?? 10,
    ...(o.tasks === undefined ? {} : { tasks: o.tasks }),
    target: o.target ?? 0.95,
    steps: o.steps ?? 50,
    seed: o.seed ?? 1,
    concurrency: o.concurrency ?? 4,
    p: o.p,
    v: o.v,
    settings,
    signal,
    onSample: (done, total) => progress.update(done, total),
  });
  progress.done();
  const { file, inGit } = await saveCalibration(dir, result, settings);
  io.stdout(o.json === true ? `${JSON.stringify(result)}\n` : table(result, file, inGit));
  return 0;
}

function table(c: Calibration, file: string, inGit: boolean): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const lines = [
    `Calibration of ${c.model}${c.simulated ? ' (SIMULATED)' : ''}: ${c.tasks} subtasks × ${c.samplesPerTask} samples`,
    `  v (valid)     ${c.v.toFixed(3)}  [${c.vLow.toFixed(3)}, ${c.vHigh.toFixed(3)}]  ${c.validSamples}/${c.samples}`,
    `  p (correct)   ${c.p.toFixed(3)}  [${c.pLow.toFixed(3)}, ${c.pHigh.toFixed(3)}]  ${c.correctSamples}/${c.validSamples} valid`,
    ...answersLine(c),
    '',
    '  k   voted correct   undecided   draws/subtask',
    ...c.votes.map(
      (v) =>
        `  ${v.k}   ${pct(v.correct).padStart(13)}   ${pct(v.undecided).padStart(9)}   ${v.drawsPerSubtask.toFixed(2).padStart(13)}`,
    ),
    '',
    c.recommendedK === null
      ? `No k reaches ${c.target} over ${c.steps} subtasks: ${noKReason(c)}`
      : `Recommended k = ${c.recommendedK} for P(all ${c.steps} subtasks right) ≥ ${c.target} (${(c.pFull ?? 0).toFixed(4)} expected at p = ${c.pLow.toFixed(3)}, the lower end of its interval), about ${(c.expectedSamplesPerSubtask ?? 0).toFixed(2)} samples and ${Math.round(c.expectedTokensPerSubtask ?? 0).toLocaleString('en-US')} tokens per minimal subtask.`,
  ];
  const flags = Object.entries(c.flags);
  if (flags.length > 0) lines.push(`Red flags: ${flags.map(([r, n]) => `${r} ${n}`).join(', ')}.`);
  lines.push(
    `Saved to ${file} (\`maker run --confidence auto\` uses it)${inGit ? `; ${CALIBRATION_FILE_NAME} is kept out of git` : ''}.`,
  );
  return `${lines.join('\n')}\n`;
}

/** How many texts the valid samples were and how many answers they vote as (the run's classes). */
function answersLine(c: Calibration): string[] {
  const answers = c.perTask.reduce((n, t) => n + (t.answers ?? 0), 0);
  const classes = c.perTask.reduce((n, t) => n + (t.classes ?? 0), 0);
  return c.perTask.every((t) => t.answers !== undefined && t.classes !== undefined)
    ? [
        `  answers       ${answers} distinct texts among valid samples, voting as ${classes} classes`,
      ]
    : [];
}
