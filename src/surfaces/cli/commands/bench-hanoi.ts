import { defineCommand, flag, option } from '../define.js';
import { decimal, text, wholeNumber } from '../values.js';

export const benchHanoiCommand = defineCommand({
  name: 'hanoi',
  summary: "the paper's million-step Towers of Hanoi benchmark (offline by default)",
  description: `The MAKER paper's benchmark: Towers of Hanoi with one move per agent call
(m = 1). Each step sees only the strategy, the current state and the previous
move, answers "move = [disk, from, to]" and "next_state = [[...]]", is
red-flagged by the 750-token cap and the paper's strict parser, and is decided
by first-to-ahead-by-k voting on the (move, next_state) pair. The winner's
next_state feeds the next step. An oracle scores every step, so "errors: 0" is
checked, not assumed. 20 disks = 1,048,575 steps.`,
  options: {
    disks: option('--disks <n>', 'number of disks (default 20)', wholeNumber({ min: 1, max: 30 })),
    k: option(
      '--k <k>',
      "vote margin (default 3, the paper's k_min for this run)",
      wholeNumber({ min: 1, max: 1000 }),
    ),
    initial: option(
      '--initial <b>',
      'first batch per step: a number, "k" (default) or "2k-1"',
      text('a whole number ≥ 1, "k" or "2k-1"', /^(k|2k[-−]1|[1-9]\d*)$/),
    ),
    maxDraws: option(
      '--max-draws <n>',
      'per-step cap on draws; an undecided step stops the run',
      wholeNumber({ min: 1 }),
    ),
    model: option(
      '--model <model>',
      '"sim" (default, offline and seeded) or a Gemini model such as gemini-2.5-flash (needs a key, GEMINI_API_KEY, or Vertex AI: not Gemini CLI, which cannot set the exact temperature and thinking budget measured; costs money: start with --disks 3 or --steps 10; GOOGLE_GEMINI_BASE_URL overrides the API address)',
      text('"sim" or a Gemini model name such as gemini-2.5-flash', /^(sim|gemini-[\w.-]+)$/),
    ),
    p: option(
      '--p <p>',
      "sim: per-sample success on ordinary steps (default 0.9978, gpt-4.1-mini's measured rate)",
      decimal({ min: 0, max: 1 }),
    ),
    v: option(
      '--v <v>',
      'sim: share of samples that pass red-flagging (default 0.995)',
      decimal({ min: 0, max: 1, exclusiveMin: true }),
    ),
    seed: option(
      '--seed <s>',
      'sim: seed (default 1); the same seed gives the same run',
      wholeNumber({ min: 0, max: 2 ** 32 - 1 }),
    ),
    steps: option(
      '--steps <n>',
      'stop after N steps (default: all 2^disks - 1)',
      wholeNumber({ min: 0 }),
    ),
    thinkingBudget: option(
      '--thinking-budget <n>',
      "Gemini thinking models: hidden-reasoning tokens per call. Thinking counts against the 750-token cap, so use 0 (off, like the paper's gpt-4.1-mini) where the model allows it",
      wholeNumber({ min: 0 }),
    ),
    reference: flag('--no-reference', 'sim: skip timing the bare synchronous reference loop'),
    json: flag('--json', 'print one JSON object (progress, if any, goes to stderr)'),
  },
  notes: `Examples:
  maker bench hanoi --disks 20                 # the million-step run, simulated
  maker bench hanoi --disks 20 --k 2 --json    # usually fails: k = 2 is too small
  GEMINI_API_KEY=... maker bench hanoi --model gemini-2.5-flash --disks 3
`,
  exits: [
    [0, 'solved with zero errors'],
    [1, 'not solved (the report says why)'],
    [2, 'usage error'],
    [130, 'interrupted'],
  ],
});
