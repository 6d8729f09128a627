import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError, UsageError } from '../../../core/errors.js';
import { isSimulatedRun } from '../../../core/tree/simulated.js';
import type { Run, RunConfig } from '../../../core/tree/schema.js';
import type { MakerEngine, RunOutcome } from '../../../engine/maker-engine.js';
import type { Workspace } from '../../../ports/workspace.js';
import { summarise } from '../../../engine/summary.js';
import { STATE_FILE_NAME, makerStateFile } from '../../../adapters/state/state-file.js';
import { WorkspaceLock } from '../../../adapters/state/lock.js';
import { inspectRepository } from '../../../adapters/git/inspect.js';
import { checkBeforeRun, landingNotice, type Target } from '../../preflight.js';
import type { GitWorkspace } from '../../../adapters/git/git-workspace.js';
import type { GitHubRun } from '../../../core/tree/schema.js';
import type { GitHubAsk } from '../../github/plan.js';
import { setUpGitHub } from '../../github/setup.js';
import { parseRepoSpec } from '../../github/target.js';
import { remotesFor, tokenForRun } from '../../github/wiring.js';
import { demoGitHub } from '../demo-github.js';
import { resumeDemoFake } from '../../github/demo-fake.js';
import {
  cannotStart,
  crashSeam,
  engineFor,
  openWorkspace,
  rolesFor,
  runConfig,
  secretsOf,
} from '../../wiring.js';
import {
  WORKERS,
  chooseWorker,
  julesSettings,
  noWorkerMessage,
  kindsWhere,
  type RoleOptions,
  type WorkerKind,
  type WorkerName,
} from '../../workers.js';

/** The kinds a demo may use: the offline, simulated ones. */
const SIMULATED_WORKERS = Object.values(WORKERS)
  .filter((k) => k.simulated)
  .map((k) => k.name) as [WorkerName, ...WorkerName[]];
import { defineCommand, flag, option, type CliContext } from '../define.js';
import { oneOf, wholeNumber } from '../values.js';
import { addLocalOrigin, julesChoices } from '../jules-flags.js';
import type { CliIo } from '../io.js';
import { INTERRUPTED_EXIT, USAGE_EXIT, dirOption, runOption } from './common.js';
import { JULES_NOTES, RUN_OPTIONS as O } from './run-options.js';
import { allowanceChoices, chooseConfidence, replaying } from './run-choices.js';
import { keepViewOpen, startRunView } from './run-view.js';
import { exitCode, humanOutcome, watch } from './run-watch.js';

const RUN_EXITS = [
  [0, 'done (landed) or vetoed'],
  [1, 'failed (the summary says why; `maker resume` continues after the cause is fixed)'],
  USAGE_EXIT,
  [4, 'waiting for answers (--hitl defer): `maker answer`, then `maker resume`'],
  INTERRUPTED_EXIT,
] as const;

type Hitl = 'tty' | 'view' | 'defer' | 'auto' | 'fail';

/** The --hitl choice when none is given: at a terminal, ask there; else on the page, or defer. */
function defaultHitl(io: CliIo, view: boolean): Hitl {
  return io.stdinIsTty ? 'tty' : view ? 'view' : 'defer';
}

/** The engine's HITL policy for a --hitl choice; `tty` needs a terminal, `view` the live view. */
function hitlPolicy(choice: Hitl, io: CliIo, view: boolean): RunConfig['hitl'] {
  if (choice === 'tty' && !io.stdinIsTty)
    throw new UsageError(
      `--hitl tty needs a terminal; use ${view ? '--hitl view (answer on the page), ' : ''}--hitl defer (then \`maker answer\`), auto or fail.`,
    );
  if (choice === 'view' && !view)
    throw new UsageError('--hitl view answers questions on the live view: add --view.');
  return choice === 'tty' || choice === 'view' ? 'wait' : choice;
}

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
    runChecks: O.runChecks,
    check: O.check,
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
    const ctx = replaying(cli, o.replay);
    const view = o.view === true;
    const hitlChoice = o.hitl ?? defaultHitl(ctx.io, view);
    const hitl = hitlPolicy(hitlChoice, ctx.io, view);
    const kind = chooseWorker(o.worker, ctx.io.env);
    if (kind === undefined)
      throw new ConfigError(noWorkerMessage((worker) => `--worker ${worker}`, '`maker demo`'));
    const dir = resolve(o.dir ?? ctx.io.cwd);
    const confidence = await chooseConfidence(ctx.io, o, dir, kind);
    return start(ctx, {
      idea: args[0] as string,
      dir,
      kind,
      hitlChoice,
      json: o.json === true,
      view,
      ...(o.check === undefined ? {} : { check: o.check }),
      github: {
        ...(o.github === undefined ? {} : { repo: parseRepoSpec(o.github) }),
        public: o.githubPublic === true,
        keepCandidates: o.keepCandidates === true,
      },
      choices: {
        ...confidence,
        hitl,
        runChecks: o.runChecks === true,
        ...allowanceChoices(o),
        ...defined({
          seed: o.seed,
          maxDepth: o.maxDepth,
          concurrency: o.concurrency,
          model: o.model,
          jules: julesChoices(o),
        }),
      },
    });
  },
});

export const demoCommand = defineCommand({
  name: 'demo',
  summary: 'the whole pipeline offline on the simulated model and worker',
  description: `The whole pipeline offline on the simulated planner in a fresh repository (a
temp directory unless --dir), questions answered automatically. Every candidate
is simulated: nothing it writes is real work. By default the run works against
a local fake GitHub on 127.0.0.1 (simulated too): the repository is created
there, every node branch pushed, the result opened as a pull request, and
accepting the veto merges it. With GITHUB_API_URL pointing at a loopback
address (\`maker fake-github\` in another process) the demo uses that one
(GITHUB_TOKEN its token), so \`maker resume\` can continue a demo.
--local-only composes in the local repository alone. --worker jules-fake sends
every candidate through the Jules REST protocol to a local fake Jules server,
which reads the same (fake) GitHub repository.`,
  args: [
    {
      name: 'idea',
      help: 'what to pretend to build (default: a command-line tool that converts CSV files to JSON)',
    },
  ],
  options: {
    dir: {
      ...dirOption,
      help: 'the repository (created if missing; default: a new temp directory)',
    },
    worker: option(
      '--worker <kind>',
      `${kindsWhere((k) => k.simulated)} (default sim): ${Object.values(WORKERS)
        .filter((k) => k.simulated)
        .map((k) => `${k.name}: ${k.summary}`)
        .join('; ')}`,
      oneOf(SIMULATED_WORKERS),
    ),
    seed: O.seed,
    view: {
      ...O.view,
      help: 'serve the live view of the run on 127.0.0.1 (its address, token included, is printed on stderr); its questions then wait for your answer on the page instead of being answered automatically. The page stays open after the run ends, until Ctrl-C',
    },
    pace: option(
      '--pace <ms>',
      'make every simulated call take this long, to watch the run move (default 0)',
      wholeNumber({ min: 0, max: 60_000 }),
    ),
    localOnly: flag(
      '--local-only',
      'compose in the local repository only, without the local fake GitHub',
    ),
    json: { ...O.json, help: 'print one JSON summary at the end' },
  },
  exits: [[0, 'done'], [1, 'failed'], USAGE_EXIT, INTERRUPTED_EXIT],
  run: async ({ args, options: o }, ctx) => {
    const view = o.view === true;
    const dir = resolve(o.dir ?? (await mkdtemp(join(tmpdir(), 'maker-demo-'))));
    const github = o.localOnly === true ? undefined : await demoGitHub(ctx.io.env, dir);
    if (github !== undefined && !o.json) ctx.io.stderr(`maker: ${github.said}\n`);
    try {
      return await start(
        { ...ctx, io: { ...ctx.io, env: github?.env ?? ctx.io.env } },
        {
          idea: args[0] ?? 'a command-line tool that converts CSV files to JSON',
          dir,
          kind: WORKERS[o.worker ?? 'sim'],
          hitlChoice: view ? 'view' : 'auto',
          json: o.json === true,
          demo: true,
          view,
          paceMs: o.pace ?? 0,
          ...(github === undefined
            ? {}
            : {
                github: github.ask,
                sourceGitDir: github.sourceGitDir,
                demoFake: github.kept,
              }),
          choices: {
            hitl: view ? 'wait' : 'auto',
            sim: { clarify: true },
            ...defined({ seed: o.seed }),
          },
        },
      );
    } finally {
      await github?.close();
    }
  },
});

export const resumeCommand = defineCommand({
  name: 'resume',
  summary: 'continue an unfinished run from maker-state.json',
  description: `Continues an unfinished run (the latest one unless --run) from the state file,
exactly where it stopped: finished work is never paid for twice.`,
  options: {
    dir: dirOption,
    run: { ...runOption, help: 'the run (default: the latest unfinished one)' },
    hitl: O.hitl,
    view: O.view,
    replay: O.replay,
    julesPlan: O.julesPlan,
    julesConcurrency: O.julesConcurrency,
    julesDailySessions: O.julesDailySessions,
    julesPlanReview: O.julesPlanReview,
    julesOutageSeconds: O.julesOutageSeconds,
    json: O.json,
  },
  notes:
    "The --jules-… options raise (or lower) the limits the run was started with. --hitl\n(or --view without --hitl) replaces the run's question policy for this resume.\n",
  exits: RUN_EXITS,
  run: async ({ options: o }, cli) => {
    const ctx = replaying(cli, o.replay);
    const { io } = ctx;
    const view = o.view === true;
    const hitlChoice = o.hitl ?? defaultHitl(io, view);
    const hitl = hitlPolicy(hitlChoice, io, view);
    const dir = resolve(o.dir ?? io.cwd);
    const target = await inspectRepository(dir);
    if (target.kind === 'missing' || target.kind === 'file')
      throw new UsageError(
        `${o.dir === undefined ? 'This directory' : `--dir ${dir}`} ${target.kind === 'missing' ? 'does not exist' : 'is a file, not a directory'}: there is no run to resume there.`,
      );
    const run = pickRun((await makerStateFile(dir).load()).runs, o.run, dir);
    const kind = WORKERS[run.config.worker];
    const julesFlags = julesChoices(o);
    if (julesFlags !== undefined && kind.julesDefaults === undefined)
      throw new UsageError(
        `Run ${run.id} does not use the jules worker: --jules-… flags do not apply.`,
      );
    const jules = julesSettings(kind, { ...run.config.jules, ...julesFlags });
    const config: RunConfig = {
      ...run.config,
      ...(o.hitl === undefined && !view ? {} : { hitl }),
      ...(jules === undefined ? {} : { jules }),
    };
    const problems: string[] = [
      ...(target.kind === 'repository' && target.branch === null
        ? [`${dir} has a detached HEAD: check out ${run.config.defaultBranch}.`]
        : []),
      ...kind.problems(io.env, {
        origin: target.kind === 'repository' ? target.origin : undefined,
      }),
    ];
    const github = await tokenForRun(run, io.env, dir);
    problems.push(...github.problems);
    if (problems.length > 0)
      throw new ConfigError(`${cannotStart(kind.name, problems)}\nThe run was not changed.`);
    announce(io, target, o.json === true);
    await new WorkspaceLock(join(dir, `${STATE_FILE_NAME}.lock`), {
      command: 'resume',
    }).holdUntilExit();
    const served =
      run.github?.demoFake === true
        ? await resumeDemoFake({ ...run, github: run.github }, dir)
        : undefined;
    try {
      const workspace = await openWorkspace(dir, false, io.env);
      const { engine, roles } = wire(dir, workspace, io.env, served?.token ?? github.token, {
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
      if (o.json !== true) {
        if (served !== undefined)
          io.stderr(
            `maker: SIMULATED GitHub: the demo's local fake GitHub served again at ${served.fake.baseUrl}${served.github === undefined ? '' : ` (its recorded port was taken: the run's URLs and origin now use this one)`}\n`,
          );
        io.stderr(startLine(loaded, dir, 'resuming'));
      }
      return await drive(ctx, {
        engine,
        runId: run.id,
        dir,
        hitlChoice,
        json: o.json === true,
        roles,
        view: view ? workspace : undefined,
      });
    } finally {
      await served?.fake.close();
    }
  },
});

function defined<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(values).filter(([, v]) => v !== undefined),
  ) as Partial<T>;
}

/** The run's first line: its id, where it works, its worker, and whether it is simulated. */
function startLine(run: Run, dir: string, verb: 'started' | 'resuming'): string {
  const simulated = isSimulatedRun(run.config);
  return `maker: ${verb} ${simulated ? 'SIMULATED ' : ''}run ${run.id} in ${dir} (worker ${run.config.worker}${simulated ? ': simulated plans and placeholder files, not real work' : ''})\n`;
}

/** A landing that will be refused, said at the start rather than after the work. */
function announce(io: CliIo, target: Target, json: boolean): void {
  const notice = landingNotice(target, '`maker resume`');
  if (notice !== undefined && !json) io.stderr(`maker: note: ${notice}\n`);
}

/**
 * Checks everything first (flags, keys, the worker's needs, the directory, the state file), then
 * creates the run and drives it: nothing is created or changed when anything is wrong.
 */
async function start(
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
    github?: GitHubAsk | undefined;
    /** The demo's fake GitHub: where its bare repositories are, for the fake Jules. */
    sourceGitDir?: ((owner: string, name: string) => string) | undefined;
    /** The demo serves its own fake GitHub and keeps its world (the run's record says so). */
    demoFake?: boolean;
    choices: Omit<Parameters<typeof runConfig>[0], 'defaultBranch' | 'worker'>;
  },
): Promise<number> {
  const { io } = ctx;
  const { kind, dir } = plan;
  if (plan.choices.jules !== undefined && kind.julesDefaults === undefined)
    throw new UsageError('The --jules-… flags need --worker jules or jules-fake.');
  const {
    target,
    github,
    notice: githubNotice,
  } = await checkBeforeRun(
    dir,
    kind,
    io.env,
    (d) =>
      new UsageError(
        `--dir ${d} is a file, not a directory: give the repository's directory (it is created if missing).`,
      ),
    { runChecks: plan.choices.runChecks, check: plan.check },
    plan.github,
  );
  announce(io, target, plan.json);
  if (githubNotice !== undefined && !plan.json) io.stderr(`maker: note: ${githubNotice}\n`);
  await mkdir(dir, { recursive: true });
  await new WorkspaceLock(join(dir, `${STATE_FILE_NAME}.lock`), {
    command: plan.demo === true ? 'demo' : 'run',
  }).holdUntilExit();
  let workspace: GitWorkspace;
  let record: GitHubRun | undefined;
  if (github === undefined) {
    workspace = await openWorkspace(dir, true, io.env);
    if (plan.demo === true && kind.julesDefaults !== undefined) await addLocalOrigin(workspace);
  } else {
    const made = await setUpGitHub(
      github,
      dir,
      () => openWorkspace(dir, true, io.env),
      crashSeam(io.env),
    );
    workspace = made.workspace;
    record = plan.demoFake === true ? { ...made.record, demoFake: true } : made.record;
    if (!plan.json) io.stderr(`maker: GitHub: ${made.said}\n`);
  }
  const config = runConfig({
    ...plan.choices,
    worker: kind.name,
    defaultBranch: await workspace.currentBranch(),
  });
  const { engine, roles } = wire(dir, workspace, io.env, github?.token, {
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
  return drive(ctx, {
    engine,
    runId,
    dir,
    hitlChoice: plan.hitlChoice,
    json: plan.json,
    roles,
    view: plan.view === true ? workspace : undefined,
  });
}

/**
 * The engine over a workspace, with roles made per run (so a run's worker shares its GitHub
 * publisher) and, with a token, each GitHub run's remote.
 */
function wire(
  dir: string,
  workspace: GitWorkspace,
  env: Readonly<Record<string, string | undefined>>,
  token: string | undefined,
  options: RoleOptions,
): { engine: MakerEngine; roles: Record<string, never> } {
  const remote = remotesFor(workspace, token, () => engine.persist());
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
async function drive(
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

function pickRun(runs: Readonly<Record<string, Run>>, id: string | undefined, dir: string): Run {
  if (id !== undefined) {
    const run = runs[id];
    if (run === undefined)
      throw new UsageError(
        `No run "${id}" in ${dir}. Runs: ${Object.keys(runs).join(', ') || 'none'}.`,
      );
    return run;
  }
  const open = Object.values(runs).filter((r) => r.status !== 'done' && r.status !== 'vetoed');
  const latest = open.sort((a, b) => a.createdAt.localeCompare(b.createdAt)).at(-1);
  if (latest === undefined) throw new UsageError(`Nothing to resume in ${dir}: no unfinished run.`);
  return latest;
}
