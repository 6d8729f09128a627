import { MODEL_ACCESSES } from '../../../app/wiring/model-access.js';
import { DEFAULT_MODEL } from '../../../app/workers/index.js';
import { defineCommand, flag, option } from '../define.js';
import { decimal, oneOf, text, wholeNumber } from '../values.js';
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
      `a Gemini model (default ${DEFAULT_MODEL}; through any model access: a key, Vertex AI or your signed-in Gemini CLI, as \`maker doctor\` says; or MAKER_REPLAY) or "sim" (offline, seeded)`,
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
    modelAccess: option(
      '--model-access <access>',
      'how MAKER reaches Gemini, as for `maker run`: key, vertex or gemini-cli (default: the first available, as `maker doctor` says)',
      oneOf(MODEL_ACCESSES),
    ),
    json: flag('--json', 'print one JSON object (the saved calibration)'),
  },
  notes: `Examples:
  maker calibrate --model sim --p 0.8 --v 0.95 --seed 3
  GEMINI_API_KEY=... maker calibrate --model gemini-2.5-flash --samples 5
  maker calibrate --model-access gemini-cli --samples 3   (your signed-in Gemini CLI)
`,
  exits: [
    [0, 'measured and saved'],
    [1, 'failed (a model call, the sandbox)'],
    USAGE_EXIT,
    [130, 'interrupted'],
  ],
});
