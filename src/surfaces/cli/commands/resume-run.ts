import { resolve } from 'node:path';
import { UsageError } from '../../../core/errors.js';
import type { Run, RunConfig } from '../../../core/tree/schema.js';
import { checkResume, NOTHING_STARTED, resumableRun } from '../../../app/resume-run.js';
import { holdWorkspace, lookAt } from '../../../app/workspace-hold.js';
import { openWorkspace } from '../../../app/wiring/wiring.js';
import { julesSettings, workerKind } from '../../../app/workers/index.js';
import {
  announce,
  drive,
  hitlPolicy,
  resumedHitl,
  startLine,
  wire,
  type Hitl,
} from './run-drive.js';
import type { CliIo } from '../io.js';
import { julesChoices } from '../jules-flags.js';
import { cliSettings } from './run-choices.js';
import type { Settings } from '../../../app/settings.js';
import { resumeStart } from './resume-start.js';
import type { resumeCommand } from './resume.js';
import type { CliContext, InputOf } from '../define.js';

/** `maker resume`, loaded when it runs (see resume.ts for its options and help). */
export async function run(
  { options: o }: InputOf<typeof resumeCommand>,
  ctx: CliContext,
): Promise<number> {
  const { io } = ctx;
  const settings = cliSettings(io, { replay: o.replay });
  const view = o.view === true;
  const dir = resolve(o.dir ?? io.cwd);
  const { target, state } = await lookAt(dir);
  if (target.kind === 'missing' || target.kind === 'file' || state === undefined)
    throw new UsageError(
      `${o.dir === undefined ? 'This directory' : `--dir ${dir}`} ${target.kind === 'missing' ? 'does not exist' : 'is a file, not a directory'}: there is no run to resume there.${target.kind === 'missing' ? ` ${NOTHING_STARTED}` : ''}`,
    );
  // A start a kill interrupted before its run was saved is the newest: finished first.
  if (state.starting !== undefined && (o.run === undefined || o.run === state.starting.id)) {
    const hitlChoice = resumedHitl(o.hitl, state.starting.config.hitl, io, view);
    if (julesChoices(o) !== undefined)
      throw new UsageError(
        `Run ${state.starting.id} has not started yet: its --jules-… limits are the ones it was started with. Resume without them, then again with them if needed.`,
      );
    return resumeStart(ctx, state.starting, {
      dir,
      settings,
      hitlChoice,
      json: o.json === true,
      view,
      hitl: hitlPolicy(hitlChoice, io, view),
    });
  }
  const run = await resumableRun(state.runs, o.run, dir);
  const { config, hitlChoice } = resumedConfig(run, o, io, view);
  const token = await checkResume(run, dir, settings, 'cli');
  announce(io, target, o.json === true);
  await holdWorkspace(dir, 'resume');
  return driveResumed(ctx, run, config, {
    dir,
    settings,
    token,
    hitlChoice,
    json: o.json === true,
    view,
  });
}

/** The run's settings as resumed: its own, with the --hitl and --jules-… given now. */
function resumedConfig(
  run: Run,
  o: InputOf<typeof resumeCommand>['options'],
  io: CliIo,
  view: boolean,
): { config: RunConfig; hitlChoice: Hitl } {
  const hitlChoice = resumedHitl(o.hitl, run.config.hitl, io, view);
  const kind = workerKind(run.config.worker);
  const julesFlags = julesChoices(o);
  if (julesFlags !== undefined && kind.julesDefaults === undefined)
    throw new UsageError(
      `Run ${run.id} does not use the jules worker: --jules-… flags do not apply.`,
    );
  const jules = julesSettings(kind, { ...run.config.jules, ...julesFlags });
  const config: RunConfig = {
    ...run.config,
    hitl: hitlPolicy(hitlChoice, io, view),
    ...(jules === undefined ? {} : { jules }),
  };
  return { config, hitlChoice };
}

/**
 * Drives the checked run again with `config`, in the foreground: a demo's fake GitHub is served
 * again first (on a new port when its recorded one is taken, which the run then records).
 */
async function driveResumed(
  ctx: CliContext,
  run: Run,
  config: RunConfig,
  r: {
    dir: string;
    settings: Settings;
    token: string | undefined;
    hitlChoice: Hitl;
    json: boolean;
    view: boolean;
  },
): Promise<number> {
  const { io } = ctx;
  // Loaded when resuming: `maker --help` and the light commands never load GitHub's client.
  const { resumeDemoFake } = await import('../../../app/github/demo-fake.js');
  const served =
    run.github?.demoFake === true
      ? await resumeDemoFake({ ...run, github: run.github }, r.dir)
      : undefined;
  try {
    const workspace = await openWorkspace(r.dir, false, io.env);
    try {
      const { engine, roles } = await wire(r.dir, workspace, r.settings, served?.token ?? r.token, {
        ...(served === undefined || run.github === undefined
          ? {}
          : { sourceGitDir: served.gitDir(run.github.owner, run.github.name) }),
      });
      const loaded = await engine.getRun(run.id);
      loaded.config = config;
      if (served?.github !== undefined) {
        loaded.github = served.github;
        await engine.persist();
      }
      if (!r.json) {
        if (served !== undefined)
          io.stderr(
            `maker: SIMULATED GitHub: the demo's local fake GitHub served again at ${served.fake.baseUrl}${served.github === undefined ? '' : ` (its recorded port was taken: the run's URLs and origin now use this one)`}\n`,
          );
        io.stderr(startLine(loaded, r.dir, 'resuming'));
      }
      return await drive(ctx, {
        engine,
        runId: run.id,
        dir: r.dir,
        hitlChoice: r.hitlChoice,
        json: r.json,
        roles,
        view: r.view ? workspace : undefined,
      });
    } finally {
      await workspace.close();
    }
  } finally {
    await served?.fake.close();
  }
}
