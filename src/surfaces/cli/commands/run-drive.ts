import { mkdir, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../../../core/errors.js';
import { StopError } from '../../../core/stops.js';
import { setUpStop } from '../../set-up-stop.js';
import { isSimulatedRun } from '../../../core/tree/simulated.js';
import type { Run, RunConfig } from '../../../core/tree/schema.js';
import type { MakerEngine, RunOutcome } from '../../../engine/maker-engine.js';
import type { Workspace } from '../../../ports/workspace.js';
import { summarise } from '../../../engine/summary.js';
import { STATE_FILE_NAME } from '../../../adapters/state/state-file.js';
import { WorkspaceLock } from '../../../adapters/state/lock.js';
import { agreeToInit, createdRepositoryLine, staleLockNote } from './run-init.js';
import { checkBeforeRun, landingNotice, type Target } from '../../preflight.js';
import type { GitWorkspace } from '../../../adapters/git/git-workspace.js';
import type { GitHubAsk } from '../../github/plan.js';
import {
  crashSeam,
  engineFor,
  openWorkspace,
  rolesFor,
  runConfig,
  secretsOf,
} from '../../wiring.js';
import { DEFAULT_MODEL, type RoleOptions, type WorkerKind } from '../../workers.js';
import { settleAccess } from '../../access-check.js';
import { declaredLimit, runQuota } from '../../quota-check.js';
import type { ModelAccess } from '../../model-access.js';
import type { Confidence } from '../../../core/tree/presets.js';
import { createInterface } from 'node:readline/promises';
import { type CliContext } from '../define.js';
import { addLocalOrigin } from '../jules-flags.js';
import type { CliIo } from '../io.js';

import { keepViewOpen, startRunView } from './run-view.js';
import { exitCode, humanOutcome, watch } from './run-watch.js';

/** What `maker run`, `maker demo` and `maker resume` share: the checks, the wiring and the drive of a run. */

export { RUN_EXITS } from './run-options.js';

export type Hitl = 'tty' | 'view' | 'defer' | 'auto' | 'fail';

/** The --hitl choice when none is given: at a terminal, ask there; else on the page, or defer. */
export function defaultHitl(io: CliIo, view: boolean): Hitl {
  return io.stdinIsTty ? 'tty' : view ? 'view' : 'defer';
}

/** The engine's HITL policy for a --hitl choice; `tty` needs a terminal, `view` the live view. */
export function hitlPolicy(choice: Hitl, io: CliIo, view: boolean): RunConfig['hitl'] {
  if (choice === 'tty' && !io.stdinIsTty)
    throw new UsageError(
      `--hitl tty needs a terminal; use ${view ? '--hitl view (answer on the page), ' : ''}--hitl defer (then \`maker answer\`), auto or fail.`,
    );
  if (choice === 'view' && !view)
    throw new UsageError('--hitl view answers questions on the live view: add --view.');
  return choice === 'tty' || choice === 'view' ? 'wait' : choice;
}

export function defined<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(values).filter(([, v]) => v !== undefined),
  ) as Partial<T>;
}

/** The run's first line: its id, where it works, its worker, and whether it is simulated. */
export function startLine(run: Run, dir: string, verb: 'started' | 'resuming'): string {
  const simulated = isSimulatedRun(run.config);
  return `maker: ${verb} ${simulated ? 'SIMULATED ' : ''}run ${run.id} in ${dir} (worker ${run.config.worker}${simulated ? ': simulated plans and placeholder files, not real work' : ''})\n`;
}

/** A landing that will be refused, said at the start rather than after the work. */
export function announce(io: CliIo, target: Target, json: boolean): void {
  const notice = landingNotice(target, '`maker resume`');
  if (notice !== undefined && !json) io.stderr(`maker: note: ${notice}\n`);
}

/**
 * Checks everything first (flags, keys, the worker's needs, the directory, the state file), then
 * creates the run and drives it: nothing is created or changed when anything is wrong.
 */
export async function start(
  ctx: CliContext,
  plan: {
    idea: string;
    dir: string;
    kind: WorkerKind;
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
    /** The demo's fake GitHub: where its bare repositories are, for the fake Jules. */
    sourceGitDir?: ((owner: string, name: string) => string) | undefined;
    /** The demo serves its own fake GitHub and keeps its world (the run's record says so). */
    demoFake?: boolean;
    /** The person's declared daily request limit, and whether they agreed beforehand to exceed half of it. */
    quota?: { declared?: number; confirmed: boolean };
    /** `--init`: make `dir` a git repository even though it holds files. */
    init?: boolean;
    choices: Omit<Parameters<typeof runConfig>[0], 'defaultBranch' | 'worker'>;
  },
): Promise<number> {
  const { io } = ctx;
  const { kind, dir } = plan;
  if (plan.choices.jules !== undefined && kind.julesDefaults === undefined)
    throw new UsageError('The --jules-… flags need --worker jules or jules-fake.');
  const {
    target,
    remote,
    notice: githubNotice,
  } = await checkBeforeRun(
    dir,
    kind,
    io.env,
    (d) =>
      new UsageError(
        `--dir ${d} is a file, not a directory: give the repository's directory (it is created if missing).`,
      ),
    { runChecks: plan.requireSandbox === true && plan.choices.runChecks, check: plan.check },
    plan.github,
  );
  const access = await settleAccess(kind, plan.choices.model ?? DEFAULT_MODEL, io.env);
  if (access !== undefined && !plan.json)
    io.stderr(`maker: model access: ${access.access} (${access.why})\n`);
  await confirmQuota(ctx, plan, access?.access);
  if (target.kind === 'directory')
    await agreeToInit(io, dir, plan.init === true, plan.demo === true);
  announce(io, target, plan.json);
  if (githubNotice !== undefined && !plan.json) io.stderr(`maker: note: ${githubNotice}\n`);
  const existed = await stat(dir).then(
    () => true,
    () => false,
  );
  await mkdir(dir, { recursive: true });
  const lock = new WorkspaceLock(join(dir, `${STATE_FILE_NAME}.lock`), {
    command: plan.demo === true ? 'demo' : 'run',
  });
  await lock.holdUntilExit();
  if (lock.tookOverFrom !== undefined && !plan.json)
    io.stderr(`maker: note: ${staleLockNote(lock.tookOverFrom)}\n`);
  const seam = crashSeam(io.env);
  const steps: string[] = [];
  let made: Awaited<ReturnType<typeof remote.setUp>>;
  try {
    made = await remote.setUp(
      dir,
      () => openWorkspace(dir, true, io.env),
      (step) => (steps.push(step), seam?.(step)),
    );
  } catch (error) {
    const stop = setUpStop(error, steps);
    if (stop instanceof StopError && stop.kind === 'refused' && !existed) {
      // Nothing was created: not the directory either.
      await lock.release();
      await rmdir(dir).catch(() => undefined);
    }
    throw stop;
  }
  const { workspace } = made;
  // Its long-lived git processes end with the command, not with Node.
  try {
    const record =
      made.record !== undefined && plan.demoFake === true
        ? { ...made.record, demoFake: true as const }
        : made.record;
    if (made.said !== undefined && !plan.json) io.stderr(`maker: ${made.said}\n`);
    if (target.kind !== 'repository' && !plan.json)
      io.stderr(`maker: ${await createdRepositoryLine(dir, target.kind)}\n`);
    // A demo's fake Jules without a GitHub: a local origin it reads, as Jules reads GitHub.
    if (plan.demo === true && kind.julesDefaults !== undefined && remote.kind.name === 'local')
      await addLocalOrigin(workspace);
    const config = runConfig({
      ...plan.choices,
      ...(access === undefined ? {} : { modelAccess: access.access }),
      worker: kind.name,
      defaultBranch: await workspace.currentBranch(),
    });
    const { engine, roles } = await wire(dir, workspace, io.env, remote.token, {
      paceMs: plan.paceMs,
      ...(record === undefined || plan.sourceGitDir === undefined
        ? {}
        : { sourceGitDir: plan.sourceGitDir(record.owner, record.name) }),
    });
    const runId = await engine.create(plan.idea, config, {
      ...(plan.check === undefined ? {} : { check: plan.check }),
      ...(record === undefined ? {} : { github: record }),
    });
    if (!plan.json) io.stderr(startLine(await engine.getRun(runId), dir, 'started'));
    return await drive(ctx, {
      engine,
      runId,
      dir,
      hitlChoice: plan.hitlChoice,
      json: plan.json,
      roles,
      view: plan.view === true ? workspace : undefined,
    });
  } finally {
    await workspace.close();
  }
}

/**
 * The engine over a workspace, with roles made per run (so a run's worker shares its GitHub
 * publisher) and, with a token, each GitHub run's remote.
 */
export async function wire(
  dir: string,
  workspace: GitWorkspace,
  env: Readonly<Record<string, string | undefined>>,
  token: string | undefined,
  options: RoleOptions,
): Promise<{ engine: MakerEngine; roles: Record<string, never> }> {
  // Loaded here, when a run starts: `maker --help` and the light commands never load GitHub's client.
  const { engineRemotes } = await import('../../remotes.js');
  const remote = engineRemotes(workspace, token, () => engine.persist());
  // Called only once the engine exists.
  const engine = engineFor(
    dir,
    workspace,
    (config, run) =>
      rolesFor(config, workspace, env, {
        ...options,
        ...(run === undefined ? {} : { publisher: remote(run)?.publisher }),
      }),
    secretsOf(env),
    env,
    remote,
  );
  // The engine closes the roles it makes.
  return { engine, roles: {} };
}

/** Runs the engine with progress (and questions at a terminal), then prints the outcome. */
export async function drive(
  { io, signal }: CliContext,
  r: {
    engine: MakerEngine;
    runId: string;
    dir: string;
    hitlChoice: Hitl;
    json: boolean;
    roles: { close?: () => Promise<void> };
    /** With --view: the repository the page's diffs come from. */
    view?: Pick<Workspace, 'diff'> | undefined;
  },
): Promise<number> {
  let running = true;
  const view =
    r.view === undefined
      ? undefined
      : await startRunView({
          engine: r.engine,
          runId: r.runId,
          dir: r.dir,
          workspace: r.view,
          io,
          waits: r.hitlChoice === 'tty' || r.hitlChoice === 'view',
          atTerminal: r.hitlChoice === 'tty',
          running: () => running,
        });
  const stopWatching = new AbortController();
  const runControl = new AbortController();
  signal?.addEventListener('abort', () => runControl.abort(signal.reason), { once: true });
  const watcher = watch(
    r.engine,
    r.runId,
    io,
    { json: r.json, ask: r.hitlChoice === 'tty', cancel: (reason) => runControl.abort(reason) },
    stopWatching.signal,
  );
  let outcome: RunOutcome;
  try {
    outcome = await r.engine.run(r.runId, { signal: runControl.signal });
  } catch (error) {
    await view?.close();
    throw error;
  } finally {
    running = false;
    stopWatching.abort();
    await watcher;
    await r.roles.close?.();
  }
  const run = await r.engine.getRun(r.runId);
  if (r.json) io.stdout(`${JSON.stringify({ ...summarise(run), dir: r.dir })}\n`);
  else io.stdout(humanOutcome(run, outcome, r.dir));
  if (view !== undefined) await keepViewOpen(view, io, signal);
  return exitCode(outcome.status);
}

/**
 * Says how many model requests the run may make against the access's daily limit; above half of
 * it, asks first (at a terminal) or needs --confirm-quota. Refused: nothing is created.
 */
async function confirmQuota(
  { io }: CliContext,
  plan: {
    json: boolean;
    quota?: { declared?: number; confirmed: boolean };
    choices: { confidence?: Confidence; k?: number; maxNodes?: number };
  },
  access: ModelAccess | undefined,
): Promise<void> {
  const quota = runQuota({
    access,
    confidence: plan.choices.confidence,
    k: plan.choices.k,
    maxNodes: plan.choices.maxNodes,
    declared: declaredLimit(io.env, plan.quota?.declared),
  });
  if (quota.text === undefined) return;
  if (!plan.json) io.stderr(`maker: ${quota.text}\n`);
  if (!quota.verdict.overHalf || plan.quota?.confirmed === true) return;
  const question = `That is more than half of a day's model requests. Start anyway? [y/N] `;
  if (io.stdinIsTty && !plan.json) {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    const answer = await rl.question(`maker: ${question}`).finally(() => rl.close());
    if (/^y(es)?$/i.test(answer.trim())) return;
  }
  throw new UsageError(
    `Not started: ${quota.text}. That is more than half of a day's model requests: pass --confirm-quota to start anyway (or --confidence low, or a smaller idea, for fewer). Nothing was created or changed.`,
  );
}
