import { join } from 'node:path';
import { ConfigError, UsageError } from '../core/errors.js';
import type { Run } from '../core/tree/schema.js';
import { STATE_FILE_NAME } from '../core/workspace-files.js';
import { inspectRepository } from '../adapters/git/inspect.js';
import { WorkspaceLock } from '../adapters/state/lock.js';
import { settingsOfRun, type Settings } from './settings.js';
import { checksOfRun, sandboxProblems } from './start/preflight.js';
import { cannotStart } from './wiring/wiring.js';
import { workerKind } from './workers/index.js';

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
