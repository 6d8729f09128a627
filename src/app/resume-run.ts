import { ConfigError } from '../core/errors.js';
import type { Run } from '../core/tree/schema.js';
import { inspectRepository } from '../adapters/git/inspect.js';
import type { Env } from './env.js';
import { checksOfRun, sandboxProblems } from './start/preflight.js';
import { cannotStart } from './wiring/wiring.js';
import { WORKERS } from './wiring/workers.js';

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
  env: Env,
  surface: ResumeSurface,
): Promise<string | undefined> {
  const kind = WORKERS[run.config.worker];
  const target = await inspectRepository(dir);
  // Loaded when resuming: the light commands never load GitHub's client.
  const { remoteOfRun } = await import('./start/remotes.js');
  const github = await remoteOfRun(run).resumeChecks(run, env, dir);
  const problems = [
    ...(target.kind === 'repository' && target.branch === null
      ? [`${dir} has a detached HEAD: check out ${run.config.defaultBranch}.`]
      : []),
    ...kind.problems(env, { origin: target.kind === 'repository' ? target.origin : undefined }),
    ...github.problems,
    ...(await sandboxProblems(checksOfRun(run), env)),
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
