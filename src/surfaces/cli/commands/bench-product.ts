import { PRODUCT_IDEA_NAMES, QUICK_IDEAS } from '../../../offline/product/ideas/names.js';
import { DEFAULT_EDIT_FORMAT } from '../../../core/edit-formats.js';
import { defineCommand, flag, option } from '../define.js';
import { decimal, oneOf, text, wholeNumber } from '../values.js';

export const benchProductCommand = defineCommand({
  name: 'product',
  summary: 'ideas to products: MAKER against a single shot, scored by hidden acceptance tests',
  description: `Ideas to working products. Each built-in idea
(${PRODUCT_IDEA_NAMES.join(', ')}: JavaScript and Python,
inventory in three levels of eleven leaves)
goes through MAKER as it runs by default (the real engine and its gemini worker
on a git repository in a temp directory, questions answered by the --hitl auto
policy) and through a single-shot baseline (the same prompts, sampled alike, one
sample each, no vote, no review). The model is a realistic fake (SIMULATED,
offline): code right with probability --p in many forms, else off by one,
missing an edge case, a misspelled export, a missing module or cut short, or a
leaf's plausible misconception, written the same way every time (some pass their
leaf's weak check and break later leaves); slips
in how files are written (--slip), which depend on the --edit-format the worker
asks for (over-escaped strings in JSON, broken fences and missing File: lines in
fenced blocks, omitted code in both); plans that vary in wording; acceptance
tests written from a leaf's criteria, right with --p, wrong ones repeating (some
sharing the leaf's misconception, so they pass the wrong code and fail the
right); judges and reviewers right with --judge-accuracy; the same --seed gives
the same answers.
Hidden acceptance tests, which MAKER never sees, run (node --test, or Python's
unittest) on the tree each arm lands. Reports pass rates, model calls, tokens,
wall time, how MAKER's leaf votes were settled (agreement or ballots) and why
its failed products failed (upstream cause, halted, vote lost, weak check, plan).
--quick: ${QUICK_IDEAS.join(' and ')}, one run each.`,
  options: {
    ideas: option(
      '--ideas <names>',
      `comma-separated ideas (default all: ${PRODUCT_IDEA_NAMES.join(',')})`,
      text('comma-separated idea names', /^[a-z0-9-]+(,[a-z0-9-]+)*$/),
    ),
    p: option(
      '--p <p>',
      "per-sample success of the fake's plans and code (default 0.8)",
      decimal({ min: 0, max: 1 }),
    ),
    slip: option(
      '--slip <s>',
      'share of code samples with a slip (default 0.1)',
      decimal({ min: 0, max: 1 }),
    ),
    judgeAccuracy: option(
      '--judge-accuracy <j>',
      'chance a judge or reviewer is right (default 0.9)',
      decimal({ min: 0, max: 1 }),
    ),
    seed: option(
      '--seed <s>',
      'seed of the first run (default 1); run r uses seed + r',
      wholeNumber({ min: 0, max: 2 ** 31 }),
    ),
    runs: option(
      '--runs <n>',
      'runs of each idea per arm (default 5; 1 with --quick)',
      wholeNumber({ min: 1, max: 100 }),
    ),
    editFormat: option(
      '--edit-format <f>',
      `how the worker asks for files: json (JSON strings) or fenced (File: lines and fenced blocks); default ${DEFAULT_EDIT_FORMAT}`,
      oneOf(['json', 'fenced']),
    ),
    quick: flag('--quick', `${QUICK_IDEAS.join(' and ')}, one run each (for CI)`),
    json: flag('--json', 'print one JSON object'),
  },
  exits: [
    [0, 'measured'],
    [1, 'the fake model could not answer a prompt MAKER sent (the run error names it)'],
    [2, 'usage error'],
  ],
});
