import { resolve } from 'node:path';
import { ConfigError } from '../../../core/errors.js';
import { parseRepoSpec } from '../../../app/github/target.js';
import { chooseWorker, noWorkerMessage } from '../../../app/workers/index.js';
import { defaultHitl, defined, hitlPolicy } from './run-drive.js';
import { start } from './run-start.js';
import { kindChoices } from '../kind-flags.js';
import { allowanceChoices, chooseConfidence, cliSettings, samplingChoices } from './run-choices.js';
import type { runCommand } from './run.js';
import type { CliContext, InputOf } from '../define.js';

/** `maker run`, loaded when it runs (see run.ts for its options and help). */
export async function run(
  { args, options: o }: InputOf<typeof runCommand>,
  ctx: CliContext,
): Promise<number> {
  const settings = cliSettings(ctx.io, o);
  const view = o.view === true;
  const hitlChoice = o.hitl ?? defaultHitl(ctx.io, view);
  const hitl = hitlPolicy(hitlChoice, ctx.io, view);
  const kind = chooseWorker(o.worker, settings);
  if (kind === undefined)
    throw new ConfigError(
      noWorkerMessage(
        {
          pick: (worker) => `--worker ${worker}`,
          setKey: 'export GEMINI_API_KEY=…',
          demo: '`maker demo`',
        },
        settings,
      ),
    );
  const dir = resolve(o.dir ?? ctx.io.cwd);
  const confidence = await chooseConfidence(ctx.io, o, dir, kind);
  return start(ctx, {
    idea: args[0] as string,
    dir,
    kind,
    settings,
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
        workerOptions: kindChoices(o),
      }),
      ...samplingChoices(o),
    },
  });
}
