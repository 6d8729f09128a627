import { defineCommand, flag } from '../define.js';
import { oneOf } from '../values.js';
import { dirOption } from './common.js';
import { KIND_FLAGS, RUN_EXITS, RUN_NOTES, RUN_OPTIONS as O } from './run-options.js';

export const runCommand = defineCommand({
  name: 'run',
  summary: 'decompose, vote and compose an idea into a git repository',
  description: `From an idea to a committed result, with MAKER's voting.

Splits the idea into a tree of minimal subtasks (splits and "is this minimal?"
are voted), samples 2k-1 candidate changes per subtask, red-flags suspect ones,
votes first-to-ahead-by-k, composes the winners bottom-up on branches
maker/<run>/n-…, and lands the result on the default branch after a final veto
question. Everything is saved in <repo>/maker-state.json; a crash or Ctrl-C
loses nothing: run \`maker resume\`.`,
  args: [
    {
      name: 'idea',
      help: 'what to build, quoted as one argument',
      required: true,
      missing: 'maker run needs an idea: maker run "a CLI that converts CSV to Parquet".',
    },
  ],
  excess: 'maker run takes one idea: quote it as one argument, e.g. maker run "a todo list CLI".',
  options: {
    dir: {
      ...dirOption,
      help: 'the git repository (created if missing; default: the current directory)',
    },
    init: flag(
      '--init',
      'make --dir a git repository even though it holds files, which stay untracked: MAKER commits only its own work (without --init, such a folder is refused, or confirmed at a terminal)',
    ),
    worker: O.worker,
    confidence: {
      ...O.confidence,
      help: 'low (k=1), medium (k=2, default) or high (k=3): margin, caps, triggers; auto: the k `maker calibrate` measured for the model (maker-calibration.json in --dir), with the caps of the nearest level',
      kind: oneOf(['low', 'medium', 'high', 'auto']),
    },
    k: O.k,
    hitl: O.hitl,
    view: O.view,
    seed: O.seed,
    maxDepth: O.maxDepth,
    concurrency: O.concurrency,
    model: O.model,
    checks: O.checks,
    modelAccess: O.modelAccess,
    dailyLimit: O.dailyLimit,
    confirmQuota: O.confirmQuota,
    temperature: O.temperature,
    thinkingBudget: O.thinkingBudget,
    thinkingLevel: O.thinkingLevel,
    runChecks: O.runChecks,
    check: O.check,
    install: O.install,
    allowExecutable: O.allowExecutable,
    allowSymlink: O.allowSymlink,
    allowWorkflows: O.allowWorkflows,
    allowInstallFiles: O.allowInstallFiles,
    maxFileKb: O.maxFileKb,
    replay: O.replay,
    ...KIND_FLAGS,
    github: O.github,
    githubPublic: O.githubPublic,
    keepCandidates: O.keepCandidates,
    json: O.json,
  },
  notes: RUN_NOTES,
  exits: RUN_EXITS,
});
