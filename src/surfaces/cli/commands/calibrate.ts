import { mkdir, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from '../../../core/errors.js';
import { openWorkspace } from '../../wiring.js';
import { inspectRepository } from '../../../adapters/git/inspect.js';
import {
  CALIBRATION_FILE_NAME,
  DEFAULT_MODEL,
  calibrate,
  noKReason,
  saveCalibration,
  type Calibration,
} from '../../calibration.js';
import { defineCommand, flag, option } from '../define.js';
import { progressLine } from '../io.js';
import { decimal, text, wholeNumber } from '../values.js';
import { USAGE_EXIT, dirOption } from './common.js';

export const calibrateCommand = defineCommand({
  name: 'calibrate',
  summary: "measure a model's p and v on built-in coding subtasks and advise k",
  description: `The paper's calibration (its Section 4 and Figure 6), for code. A built-in
suite of tiny coding subtasks, each with a hidden test, is sampled N times each
through the gemini worker's own path (its prompt, edit parsing and every red
flag, the LLM review included). v is the share of samples that are valid
(parsed, not red-flagged); p the share of valid ones whose hidden test passes
(run with node in a sandbox: bubblewrap, no network). Both come with 95% Wilson
intervals. From the same samples, resampled (seeded), it measures how often the
first-to-ahead-by-k winner is correct for k = 1…5. Then it advises k for the
target and step count with \`maker estimate\`'s formulas at the lower end of
p's interval (a few samples all right do not make p = 1), and the samples and
tokens a minimal subtask is expected to cost.

The result is saved as maker-calibration.json in --dir (kept out of git there
when --dir is a git repository), and
\`maker run --confidence auto\` there uses its k.`,
  options: {
    dir: {
      ...dirOption,
      help: 'where maker-calibration.json is saved (default: the current directory)',
    },
    model: option(
      '--model <model>',
      `a Gemini model (default ${DEFAULT_MODEL}; needs GEMINI_API_KEY, or MAKER_REPLAY) or "sim" (offline, seeded)`,
      text('"sim" or a Gemini model name such as gemini-2.5-flash', /^(sim|[\w.-]+)$/),
    ),
    samples: option(
      '--samples <n>',
      'samples per subtask (default 10)',
      wholeNumber({ min: 1, max: 200 }),
    ),
    tasks: option(
      '--tasks <n>',
      'use only the first N subtasks of the suite (default: all of them)',
      wholeNumber({ min: 1 }),
    ),
    target: option(
      '--target <t>',
      'wanted probability that every subtask of a run is right (default 0.95)',
      decimal({ min: 0, max: 1, exclusiveMin: true }),
    ),
    steps: option(
      '--steps <s>',
      'minimal subtasks in the runs to plan for (default 50)',
      wholeNumber({ min: 1 }),
    ),
    concurrency: option(
      '--concurrency <n>',
      'samples in flight at once (default 4)',
      wholeNumber({ min: 1, max: 64 }),
    ),
    p: option('--p <p>', 'sim: per-sample success (default 0.9)', decimal({ min: 0, max: 1 })),
    v: option(
      '--v <v>',
      'sim: share of samples that pass red-flagging (default 0.95)',
      decimal({ min: 0, max: 1, exclusiveMin: true }),
    ),
    seed: option(
      '--seed <s>',
      'seed of the sim and of the vote resampling (default 1)',
      wholeNumber({ min: 0, max: 2 ** 32 - 1 }),
    ),
    json: flag('--json', 'print one JSON object (the saved calibration)'),
  },
  notes: `Examples:
  maker calibrate --model sim --p 0.8 --v 0.95 --seed 3
  GEMINI_API_KEY=... maker calibrate --model gemini-2.5-flash --samples 5
`,
  exits: [
    [0, 'measured and saved'],
    [1, 'failed (a model call, the sandbox)'],
    USAGE_EXIT,
    [130, 'interrupted'],
  ],
  run: async ({ options: o }, { io, signal }) => {
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
      env: io.env,
      signal,
      onSample: (done, total) => progress.update(done, total),
    });
    progress.done();
    await mkdir(dir, { recursive: true });
    const file = await saveCalibration(dir, result);
    // Opening the workspace keeps MAKER's files out of git (.git/info/exclude): only in a repository.
    const inGit = (await inspectRepository(dir)).kind === 'repository';
    if (inGit) await (await openWorkspace(dir, false, io.env)).close();
    io.stdout(o.json === true ? `${JSON.stringify(result)}\n` : table(result, file, inGit));
    return 0;
  },
});

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
