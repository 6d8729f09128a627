import { resolve } from 'node:path';
import { ConfigError } from '../../../core/errors.js';
import { parseRepoSpec } from '../../github/target.js';
import { chooseWorker, noWorkerMessage } from '../../workers.js';
import { defineCommand, flag } from '../define.js';
import { RUN_EXITS, defaultHitl, defined, hitlPolicy } from './run-drive.js';
import { start } from './run-start.js';
import { oneOf } from '../values.js';
import { julesChoices } from '../jules-flags.js';
import { dirOption } from './common.js';
import { JULES_NOTES, RUN_OPTIONS as O } from './run-options.js';
import {
  allowanceChoices,
  chooseConfidence,
  replaying,
  samplingChoices,
  withModelAccess,
} from './run-choices.js';

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
      'make --dir a git repository even though it holds files (without it, such a folder is refused, or confirmed at a terminal)',
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
    maxFileKb: O.maxFileKb,
    replay: O.replay,
    julesPlan: O.julesPlan,
    julesConcurrency: O.julesConcurrency,
    julesDailySessions: O.julesDailySessions,
    julesPlanReview: O.julesPlanReview,
    julesOutageSeconds: O.julesOutageSeconds,
    github: O.github,
    githubPublic: O.githubPublic,
    keepCandidates: O.keepCandidates,
    json: O.json,
  },
  notes: JULES_NOTES,
  exits: RUN_EXITS,
  run: async ({ args, options: o }, cli) => {
    const ctx = withModelAccess(replaying(cli, o.replay), o.modelAccess);
    const view = o.view === true;
    const hitlChoice = o.hitl ?? defaultHitl(ctx.io, view);
    const hitl = hitlPolicy(hitlChoice, ctx.io, view);
    const kind = chooseWorker(o.worker, ctx.io.env);
    if (kind === undefined)
      throw new ConfigError(
        noWorkerMessage({
          pick: (worker) => `--worker ${worker}`,
          setKey: 'export GEMINI_API_KEY=…',
          demo: '`maker demo`',
        }),
      );
    const dir = resolve(o.dir ?? ctx.io.cwd);
    const confidence = await chooseConfidence(ctx.io, o, dir, kind);
    return start(ctx, {
      idea: args[0] as string,
      dir,
      kind,
      hitlChoice,
      json: o.json === true,
      view,
      quota: {
        ...(o.dailyLimit === undefined ? {} : { declared: o.dailyLimit }),
        confirmed: o.confirmQuota === true,
      },
      init: o.init === true,
      ...(o.check === undefined ? {} : { check: o.check }),
      ...(o.runChecks === true ? { requireSandbox: true } : {}),
      github: {
        ...(o.github === undefined ? {} : { repo: parseRepoSpec(o.github) }),
        public: o.githubPublic === true,
        keepCandidates: o.keepCandidates === true,
      },
      choices: {
        ...confidence,
        hitl,
        runChecks: o.checks !== false,
        ...(o.install === undefined ? {} : { install: o.install }),
        ...allowanceChoices(o),
        ...defined({
          seed: o.seed,
          maxDepth: o.maxDepth,
          concurrency: o.concurrency,
          model: o.model,
          jules: julesChoices(o),
        }),
        ...samplingChoices(o),
      },
    });
  },
});
