import { resolve } from 'node:path';
import { UsageError } from '../../../core/errors.js';
import type { GitHubRun, Run, RunConfig } from '../../../core/tree/schema.js';
import { NOTHING_STARTED, resumableRun, resumeRun } from '../../../app/resume-run.js';
import { holdWorkspace, lookAt, type HeldWorkspace } from '../../../app/workspace-hold.js';
import type { RunEngine } from '../../../app/run-engine.js';
import type { OpenedWorkspace } from '../../../app/open-engine.js';
import type { resumeDemoFake } from '../../../app/github/demo-fake.js';
import { openWorkspace } from '../../../app/wiring/wiring.js';
import { kindOptions, workerKind } from '../../../app/workers/index.js';
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
import { flagsNamed, kindChoices } from '../kind-flags.js';
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
    const chosen = kindChoices(o);
    if (chosen !== undefined)
      throw new UsageError(
        `Run ${state.starting.id} has not started yet: its ${Object.keys(chosen)
          .map((name) => `--${name}-…`)
          .join(
            ' and ',
          )} limits are the ones it was started with. Resume without them, then again with them if needed.`,
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
  const found = await resumableRun(state.runs, o.run, dir);
  // The run's as read under the lock (the configuration step's last call) is the one driven.
  let hitlChoice: Hitl = resumedConfig(found, o, io, view).hitlChoice;
  const held: Held = { lock: undefined, served: undefined, workspace: undefined };
  try {
    const { run, engine } = await resumeRun(
      { run: found, dir, settings, surface: 'cli' },
      {
        config: (run) => {
          const resumed = resumedConfig(run, o, io, view);
          hitlChoice = resumed.hitlChoice;
          return resumed.config;
        },
        hold: async () => {
          announce(io, target, o.json === true);
          held.lock = await holdWorkspace(dir, 'resume');
          return held;
        },
        engine: (_held, run, token) => openResumed(held, run, { dir, settings, token }),
        // The lock is this process's until it exits; what the engine step opened closes below.
        release: () => Promise.resolve(),
      },
    );
    if (o.json !== true) {
      if (held.served !== undefined)
        io.stderr(
          `maker: SIMULATED GitHub: the demo's local fake GitHub served again at ${held.served.fake.baseUrl}${held.served.github === undefined ? '' : ` (its recorded port was taken: the run's URLs and origin now use this one)`}\n`,
        );
      io.stderr(startLine(run, dir, 'resuming'));
    }
    return await drive(ctx, {
      engine,
      runId: run.id,
      dir,
      hitlChoice,
      json: o.json === true,
      roles: {},
      view: view ? held.workspace : undefined,
    });
  } finally {
    await held.workspace?.close();
    await held.served?.fake.close();
  }
}

/** What `maker resume` holds while it drives a run: the lock, its repository, a demo's fake GitHub. */
interface Held {
  lock: HeldWorkspace | undefined;
  served: Awaited<ReturnType<typeof resumeDemoFake>> | undefined;
  workspace: OpenedWorkspace | undefined;
}

/** The run's settings as resumed: its own, with the --hitl and the worker kind's options given now. */
function resumedConfig(
  run: Run,
  o: InputOf<typeof resumeCommand>['options'],
  io: CliIo,
  view: boolean,
): { config: RunConfig; hitlChoice: Hitl } {
  const hitlChoice = resumedHitl(o.hitl, run.config.hitl, io, view);
  const kind = workerKind(run.config.worker);
  const workerOptions = kindOptions(kind, kindChoices(o), {
    named: (name) => `${flagsNamed(name)} (run ${run.id}'s worker is ${kind.name})`,
    kept: run.config.workerOptions,
  });
  const config: RunConfig = {
    ...run.config,
    hitl: hitlPolicy(hitlChoice, io, view),
    ...(workerOptions === undefined ? {} : { workerOptions }),
  };
  return { config, hitlChoice };
}

/**
 * The engine a checked run is driven by: a demo's fake GitHub is served again first (on a new port
 * when its recorded one is taken, which the run then records), then the repository opened.
 */
async function openResumed(
  held: Held,
  run: Run,
  r: { dir: string; settings: Settings; token: string | undefined },
): Promise<{ engine: RunEngine; github?: GitHubRun | undefined }> {
  // Loaded when resuming: `maker --help` and the light commands never load GitHub's client.
  const { resumeDemoFake } = await import('../../../app/github/demo-fake.js');
  const served =
    run.github?.demoFake === true
      ? await resumeDemoFake({ ...run, github: run.github }, r.dir)
      : undefined;
  held.served = served;
  held.workspace = await openWorkspace(r.dir, false, r.settings);
  const { engine } = await wire(r.dir, held.workspace, r.settings, served?.token ?? r.token, {
    ...(served === undefined || run.github === undefined
      ? {}
      : { sourceGitDir: served.gitDir(run.github.owner, run.github.name) }),
  });
  return { engine, github: served?.github };
}
