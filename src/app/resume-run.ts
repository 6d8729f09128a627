import { join } from 'node:path';
import { ConfigError, UsageError } from '../core/errors.js';
import type { GitHubRun, Run, RunConfig, StartIntent } from '../core/tree/schema.js';
import { STATE_FILE_NAME } from '../core/workspace-files.js';
import { inspectRepository } from '../adapters/git/inspect.js';
import { WorkspaceLock } from '../adapters/state/lock.js';
import { settingsOfRun, withGitHub, type Settings } from './settings.js';
import type { GitHubAsk } from './github/plan.js';
import { checksOfRun, sandboxProblems } from './start/preflight.js';
import { cannotStart } from './wiring/wiring.js';
import { workerKind, type WorkerKind } from './workers/index.js';
import type { RunEngine } from './run-engine.js';

/** Where a resume is asked from: the terminal can serve a demo's fake GitHub again; MCP cannot. */
export type ResumeSurface = 'cli' | 'mcp';

/**
 * The one check before a run is driven again, for `maker resume` and `maker_resume`: everything
 * its worker needs (keys, the repository's origin), its GitHub repository, the checks' sandbox and
 * a checked-out branch. Refused with every problem at once, the run unchanged. Returns the GitHub
 * token the run publishes with, if it has one.
 */
export async function checkResume(
  run: Run,
  dir: string,
  given: Settings,
  surface: ResumeSurface,
): Promise<string | undefined> {
  const kind = workerKind(run.config.worker);
  const settings = settingsOfRun(given, run.config);
  const target = await inspectRepository(dir);
  // Loaded when resuming: the light commands never load GitHub's client.
  const { remoteOfRun } = await import('./start/remotes.js');
  const github = await remoteOfRun(run).resumeChecks(run, settings, dir);
  const problems = [
    ...(target.kind === 'repository' && target.branch === null
      ? [`${dir} has a detached HEAD: check out ${run.config.defaultBranch}.`]
      : []),
    ...kind.problems(settings, {
      origin: target.kind === 'repository' ? target.origin : undefined,
    }),
    ...github.problems,
    ...(await sandboxProblems(checksOfRun(run), settings.sandbox)),
    ...(surface === 'mcp' && run.github?.demoFake === true
      ? [
          `Run ${run.id} is a \`maker demo\` on the fake GitHub it served itself: continue it in a terminal with \`maker resume --dir ${dir}\`, which serves that fake again.`,
        ]
      : []),
  ];
  if (problems.length > 0)
    throw new ConfigError(`${cannotStart(kind.name, problems)}\nThe run was not changed.`);
  return github.token;
}

/**
 * Where no run was ever recorded: a `maker run` stopped (or killed) during its checks, which only
 * read, left nothing, and is run again as it was.
 */
export const NOTHING_STARTED =
  'If a `maker run` was stopped here before it started (during its checks, which change nothing), nothing was created: run the same `maker run` command again.';

/**
 * The run `maker resume` resumes in `dir`: the one `id` names, else the latest unfinished one;
 * refused with what is there (and what a process that stopped before recording anything left).
 */
export async function resumableRun(
  runs: Readonly<Record<string, Run>>,
  id: string | undefined,
  dir: string,
): Promise<Run> {
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
  if (latest === undefined) {
    const lock = await WorkspaceLock.inspect(join(dir, `${STATE_FILE_NAME}.lock`));
    throw new UsageError(
      `Nothing to resume in ${dir}: no unfinished run.${lock?.state === 'stale' ? ` A maker ${lock.owner.command ?? 'process'} (pid ${lock.owner.pid}) stopped there right after taking the workspace's lock, before recording anything: nothing was made. Run the same command again (it takes the lock over).` : Object.keys(runs).length === 0 ? ` ${NOTHING_STARTED}` : ''}`,
    );
  }
  return latest;
}

/** The steps a surface supplies to {@link resumeRun}, each at its own place in the resume. */
export interface ResumeSteps<Held> {
  /**
   * The run's configuration as it is driven now (the surface's questions policy, its flags over the
   * recorded ones). Asked of the run as found, before anything (a refusal changes nothing), and
   * again of the run as read under the lock.
   */
  config(run: Run): RunConfig;
  /** Takes the workspace for writing, once the run is checked (refused naming its holder). */
  hold(token: string | undefined): Promise<Held>;
  /**
   * The engine that drives the run, over what is held (a demo's fake GitHub is served again here,
   * with the GitHub record the run then keeps, when its port moved).
   */
  engine(
    held: Held,
    run: Run,
    token: string | undefined,
  ): Promise<{ engine: RunEngine; github?: GitHubRun | undefined }>;
  /** Lets go of what is held, when anything after {@link hold} fails. */
  release(held: Held): Promise<void>;
}

/** A resumed run: checked, held and configured in `engine`, not yet driven. */
export interface ResumedRun<Held> {
  readonly run: Run;
  readonly engine: RunEngine;
  readonly held: Held;
}

/**
 * The one resume of a run, for `maker resume` and `maker_resume`: its configuration as resumed,
 * then every check ({@link checkResume}: nothing held or changed by a refusal), then the workspace
 * held, and the run read again under the lock and given its configuration. The surface drives the
 * run it returns (the terminal in the foreground, MCP in the background). A start that a kill
 * interrupted is finished by `startRun`, not here.
 */
export async function resumeRun<Held>(
  request: {
    readonly run: Run;
    readonly dir: string;
    readonly settings: Settings;
    readonly surface: ResumeSurface;
  },
  steps: ResumeSteps<Held>,
): Promise<ResumedRun<Held>> {
  const { run, dir, settings, surface } = request;
  steps.config(run);
  const token = await checkResume(run, dir, settings, surface);
  const held = await steps.hold(token);
  try {
    const { engine, github } = await steps.engine(held, run, token);
    // Read under the lock: what another process did to it before is kept.
    const loaded = await engine.getRun(run.id);
    loaded.config = steps.config(loaded);
    if (github !== undefined) {
      loaded.github = github;
      await engine.persist();
    }
    return { run: loaded, engine, held };
  } catch (error) {
    await steps.release(held);
    throw error;
  }
}

/**
 * How a start that a kill interrupted before its run was saved is finished, by `maker resume` and
 * `maker_resume`: by its worker kind, with the model access and the GitHub API it recorded
 * (whatever the environment says now), asking for the GitHub repository it recorded. The start is
 * then the same start again (`startRun`), which looks up what was already made before
 * making anything.
 */
export function finishingStart(
  recorded: StartIntent,
  given: Settings,
): { kind: WorkerKind; settings: Settings; ask: GitHubAsk } {
  const gh = recorded.github;
  const asRecorded = settingsOfRun(given, recorded.config);
  return {
    kind: workerKind(recorded.config.worker),
    settings: gh?.apiUrl === undefined ? asRecorded : withGitHub(asRecorded, { apiUrl: gh.apiUrl }),
    ask:
      gh === undefined
        ? {}
        : {
            repo: { owner: gh.owner, name: gh.name },
            public: gh.public,
            keepCandidates: gh.keepCandidates,
          },
  };
}
