import { stat } from 'node:fs/promises';
import { UsageError } from '../../../core/errors.js';
import type { RunConfig, StartIntent, StateFile } from '../../../core/tree/schema.js';
import type { Confidence } from '../../../core/tree/presets.js';
import { holdWorkspace, lookAt } from '../../../app/workspace-hold.js';
import { checkBeforeRun, type Target } from '../../../app/start/preflight.js';
import type { GitHubAsk } from '../../../app/github/plan.js';
import type { RemotePlan } from '../../../app/start/remotes.js';
import { runConfig } from '../../../app/wiring/wiring.js';
import { startRun, type StartSteps } from '../../../app/start-run.js';
import { recordStart } from '../../../app/start/record-start.js';
import { withGitHub, type GitHubSettings, type Settings } from '../../../app/settings.js';
import { DEFAULT_MODEL, kindOptions, type WorkerKind } from '../../../app/workers/index.js';
import { flagsNamed } from '../kind-flags.js';
import { settleAccess } from '../../../app/start/access-check.js';
import { runQuota } from '../../../app/start/quota-check.js';
import type { ModelAccess } from '../../../app/wiring/model-access.js';
import {
  InterruptedStart,
  newStartIntent,
  pendingStartError,
} from '../../../app/start/start-intent.js';
import { type CliContext } from '../define.js';
import { addLocalOrigin } from '../../../app/start/local-origin.js';
import { askLine } from '../prompt.js';
import { agreeToInit, createdRepositoryLine, staleLockNote } from './run-init.js';
import { announce, drive, startLine, wire, type Hitl } from './run-drive.js';

/** A GitHub a run serves for itself (the demo's fake), started once the run's intent is saved. */
export interface ServedGitHub {
  /** How it is reached (its API and token), over the settings' GitHub. */
  readonly github: Partial<GitHubSettings>;
  readonly ask: GitHubAsk;
  /** It keeps its world in the workspace (`.git/maker-fake-github/`): a resume serves it again. */
  readonly kept: boolean;
  readonly sourceGitDir?: ((owner: string, name: string) => string) | undefined;
  readonly said: string;
  readonly close: () => Promise<void>;
}

export interface StartPlan {
  idea: string;
  dir: string;
  kind: WorkerKind;
  /** The settings the run starts with (the environment's, with the command's flags over them). */
  settings: Settings;
  hitlChoice: Hitl;
  json: boolean;
  demo?: boolean;
  view?: boolean;
  paceMs?: number;
  /** The person's overall check, run sandboxed on the composed result before the final veto. */
  check?: string;
  /** Refuse to start where no sandbox works (`--run-checks`), rather than run unverified. */
  requireSandbox?: boolean;
  github?: GitHubAsk | undefined;
  /**
   * The demo's own fake GitHub, started after the run's intent is saved (the GitHub checks then
   * run against it); `intentGitHub` is what the intent records of it before it starts.
   */
  serveGitHub?: () => Promise<ServedGitHub>;
  intentGitHub?: StartIntent['github'];
  /** The person's declared daily request limit, and whether they agreed beforehand to exceed half of it. */
  quota?: { declared?: number; confirmed: boolean };
  /** `--init`: make `dir` a git repository even though it holds files. */
  init?: boolean;
  /** Finishing a start a kill interrupted (`maker resume`): the intent it recorded. */
  resuming?: StartIntent;
  choices: Omit<Parameters<typeof runConfig>[0], 'defaultBranch' | 'worker'>;
}

/**
 * Checks everything first (flags, keys, the worker's needs, the directory, the state file), then
 * takes the workspace's lock and records the run's intent (idea, configuration, the GitHub
 * repository and what the start will make) before its first side effect of any kind; then sets
 * up (`git init`, the demo's fake GitHub, the GitHub repository), creates the run and drives it.
 * Refused: nothing is created or changed. Killed after the intent: `maker resume` finishes it.
 */
export async function start(ctx: CliContext, plan: StartPlan): Promise<number> {
  const { io } = ctx;
  const { kind, dir } = plan;
  // Checked before any side effect (the run's configuration checks them again, later).
  kindOptions(kind, plan.choices.workerOptions, { named: flagsNamed });
  const resuming = plan.resuming;
  const notADirectory = (d: string) =>
    new UsageError(
      `--dir ${d} is a file, not a directory: give the repository's directory (it is created if missing).`,
    );
  const wanted = {
    runChecks: plan.requireSandbox === true && plan.choices.runChecks,
    check: plan.check,
  };
  const checks = (settings: Settings) =>
    checkBeforeRun(dir, kind, settings, notADirectory, wanted, plan.github ?? {});
  // A run that serves its own GitHub (the demo) is checked against it once it is served.
  const checked = plan.serveGitHub === undefined ? await checks(plan.settings) : undefined;
  const early = checked ?? (await look(dir, notADirectory));
  if (early.state?.starting !== undefined && early.state.starting.id !== resuming?.id)
    throw pendingStartError(dir, early.state.starting);
  const target = early.target;
  const access = await settleAccess(
    kind,
    plan.choices.model ?? DEFAULT_MODEL,
    plan.settings,
    ctx.signal,
  );
  if (access !== undefined && !plan.json)
    io.stderr(`maker: model access: ${access.access} (${access.why})\n`);
  if (resuming === undefined) {
    await confirmQuota(ctx, plan, access?.access);
    if (target.kind === 'directory')
      await agreeToInit(io, dir, plan.init === true, plan.demo === true, ctx.signal);
  }
  announce(io, target, plan.json);
  if (checked?.notice !== undefined && !plan.json) io.stderr(`maker: note: ${checked.notice}\n`);
  // Ctrl-C before anything was made: nothing to leave.
  if (ctx.signal?.aborted === true) throw new InterruptedStart(dir, undefined, undefined);
  const existed = await stat(dir).then(
    () => true,
    () => false,
  );
  const { settings } = plan;
  const intent =
    resuming ??
    newIntent(plan, target, access?.access, checked?.remote, existed, plan.intentGitHub);
  let served: ServedGitHub | undefined;
  try {
    const started = await startRun(
      { dir, intent, settings },
      cliStartSteps(ctx, plan, { settings, checks, checked, target }, (s) => (served = s)),
    );
    const { engine, runId, made } = started;
    // Its long-lived git processes end with the command, not with Node.
    try {
      if (!plan.json)
        io.stderr(startLine(await engine.getRun(runId), dir, resuming ? 'resuming' : 'started'));
      return await drive(ctx, {
        engine,
        runId,
        dir,
        hitlChoice: plan.hitlChoice,
        json: plan.json,
        roles: started.held,
        view: plan.view === true ? made.workspace : undefined,
      });
    } finally {
      await made.workspace.close();
    }
  } finally {
    await served?.close();
  }
}

/**
 * `maker run`'s steps of the shared start: the lock held until the process exits, the demo's
 * GitHub served and checked once the intent is saved, Ctrl-C honoured between steps (leaving the
 * start for `maker resume`), and what was made said on stderr.
 */
function cliStartSteps(
  ctx: CliContext,
  plan: StartPlan,
  at: {
    settings: Settings;
    checks: (settings: Settings) => ReturnType<typeof checkBeforeRun>;
    checked: Awaited<ReturnType<typeof checkBeforeRun>> | undefined;
    target: Target;
  },
  serving: (served: ServedGitHub) => void,
): StartSteps<Record<string, never>> {
  const { io } = ctx;
  const { dir, kind } = plan;
  let intent: StartIntent | undefined;
  let served: ServedGitHub | undefined;
  /** The settings over the served GitHub, once it is served. */
  let settings = at.settings;
  /** Ctrl-C: stops here, saying what the start left (`made`, beyond its record) and what to do. */
  const stopIfInterrupted = (made?: string) => {
    if (ctx.signal?.aborted === true) throw new InterruptedStart(dir, intent, made);
  };
  return {
    record: async (recorded) => {
      intent = recorded;
      return recordCliStart(io, plan, recorded, at.settings);
    },
    remote: async (undo) => {
      stopIfInterrupted();
      let checked = at.checked;
      if (plan.serveGitHub !== undefined) {
        served = await plan.serveGitHub();
        serving(served);
        if (!plan.json) io.stderr(`maker: ${served.said}\n`);
        settings = withGitHub(at.settings, served.github);
        checked = await at.checks(settings).catch(async (error: unknown) => {
          await undo(true);
          throw error;
        });
        if (checked.notice !== undefined && !plan.json)
          io.stderr(`maker: note: ${checked.notice}\n`);
        stopIfInterrupted();
      }
      const { remote } = checked as { remote: RemotePlan };
      return remote;
    },
    hold: () => Promise.resolve({}),
    github: (record) => (served?.kept === true ? { ...record, demoFake: true as const } : record),
    failed: (made) => made.workspace.close(),
    engine: async (made, _held, remote) => {
      stopIfInterrupted(
        [
          ...(intent?.creates.gitRepository === true ? [`the git repository ${dir}/.git`] : []),
          ...(made.record === undefined
            ? []
            : [
                `the GitHub repository ${made.record.url}${served?.kept === true ? " (on the demo's own fake GitHub, kept in .git/maker-fake-github)" : ''}`,
              ]),
        ].join(', ') || undefined,
      );
      const { workspace } = made;
      if (made.said !== undefined && !plan.json) io.stderr(`maker: ${made.said}\n`);
      if (at.target.kind !== 'repository' && !plan.json)
        io.stderr(`maker: ${await createdRepositoryLine(dir, at.target.kind)}\n`);
      // A demo's fake Jules without a GitHub: a local origin it reads, as Jules reads GitHub.
      if (plan.demo === true && kind.readsOrigin === true && remote.kind.name === 'local')
        await addLocalOrigin(workspace);
      const record = made.record;
      const { engine } = await wire(dir, workspace, settings, remote.token, {
        paceMs: plan.paceMs,
        ...(record === undefined || served?.sourceGitDir === undefined
          ? {}
          : { sourceGitDir: served.sourceGitDir(record.owner, record.name) }),
      });
      return engine;
    },
  };
}

/**
 * `maker run`'s first write (the shared {@link recordStart}): the workspace's lock held until the
 * process exits, a stale lock taken over said on stderr.
 */
function recordCliStart(
  io: CliContext['io'],
  plan: StartPlan,
  intent: StartIntent,
  settings: Settings,
): ReturnType<typeof recordStart> {
  const command = plan.demo === true ? 'demo' : plan.resuming === undefined ? 'run' : 'resume';
  return recordStart(plan.dir, intent, {
    take: () => holdWorkspace(plan.dir, command),
    locked: (lock) => {
      if (lock.tookOverFrom !== undefined && !plan.json)
        io.stderr(`maker: note: ${staleLockNote(lock.tookOverFrom)}\n`);
    },
    settings,
    resuming: plan.resuming !== undefined,
  });
}

/** The directory and its state, read before anything is made (the demo's, before its fake starts). */
async function look(
  dir: string,
  notADirectory: (dir: string) => Error,
): Promise<{ target: Target; state: StateFile | undefined }> {
  const { target, state } = await lookAt(dir);
  if (target.kind === 'file') throw notADirectory(dir);
  return { target, state };
}

/** What a new start records before it makes anything. */
function newIntent(
  plan: StartPlan,
  target: Target,
  access: ModelAccess | undefined,
  remote: RemotePlan | undefined,
  existed: boolean,
  served: StartIntent['github'],
): StartIntent {
  const config: Omit<RunConfig, 'defaultBranch'> & { defaultBranch?: string } = runConfig({
    ...plan.choices,
    ...(access === undefined ? {} : { modelAccess: access }),
    worker: plan.kind.name,
    defaultBranch: '',
  });
  delete config.defaultBranch;
  return newStartIntent({
    idea: plan.idea,
    command: plan.demo === true ? 'demo' : 'run',
    config,
    check: plan.check,
    creates: { directory: !existed, gitRepository: target.kind !== 'repository' },
    remote,
    served,
  });
}

/**
 * Says how many model requests the run may make against the access's daily limit; above half of
 * it, asks first (at a terminal) or needs --confirm-quota. Refused: nothing is created.
 */
async function confirmQuota(
  { io, signal }: CliContext,
  plan: {
    json: boolean;
    quota?: { declared?: number; confirmed: boolean };
    choices: { confidence?: Confidence; k?: number; maxNodes?: number };
    settings: Settings;
  },
  access: ModelAccess | undefined,
): Promise<void> {
  const quota = runQuota({
    access,
    confidence: plan.choices.confidence,
    k: plan.choices.k,
    maxNodes: plan.choices.maxNodes,
    declared: plan.quota?.declared ?? plan.settings.dailyRequests,
  });
  if (quota.text === undefined) return;
  if (!plan.json) io.stderr(`maker: ${quota.text}\n`);
  if (!quota.verdict.overHalf || plan.quota?.confirmed === true) return;
  const question = `That is more than half of a day's model requests. Start anyway? [y/N] `;
  if (io.stdinIsTty && !plan.json) {
    const answer = await askLine(`maker: ${question}`, signal);
    if (/^y(es)?$/i.test(answer.trim())) return;
  }
  throw new UsageError(
    `Not started: ${quota.text}. That is more than half of a day's model requests: pass --confirm-quota to start anyway (or --confidence low, or a smaller idea, for fewer). Nothing was created or changed.`,
  );
}
