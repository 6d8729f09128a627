import { ConfigError } from '../../core/errors.js';
import { STOPS, StopError } from '../../core/stops.js';
import { inspectRepository } from '../../adapters/git/inspect.js';
import { findSandbox, NO_SANDBOX, sandboxChoiceProblem } from '../../adapters/sandbox/bwrap.js';
import { makerStateFile } from '../../adapters/state/state-file.js';
import type { Run, StateFile } from '../../core/tree/schema.js';
import type { SandboxSettings, Settings } from '../settings.js';
import { cannotStart } from '../wiring/wiring.js';
import type { GitHubAsk } from '../github/plan.js';
import type { RemotePlan } from './remotes.js';
import type { WorkerKind } from '../workers/index.js';
import type { Target } from './target.js';

export type { Target };

/**
 * Checks everything a run of `kind` in `dir` needs, changing nothing: the directory (a file is
 * refused through `notADirectory`, which names the argument), a checked-out branch, the worker's
 * keys and repository needs, the GitHub repository (`github`, or a GitHub origin with a token:
 * token, permissions, reachability, agreeing histories), a readable state file. Every problem is reported at once, in one
 * {@link ConfigError} naming the worker. Returns what it read, for the caller to act on.
 */
export async function checkBeforeRun(
  dir: string,
  kind: WorkerKind,
  settings: Settings,
  notADirectory: (dir: string) => Error,
  checks: ChecksWanted = {},
  github: GitHubAsk = {},
): Promise<{
  target: Target;
  state: StateFile | undefined;
  /** The run's remote (see `remotes.ts`): set when there is no problem. */
  remote: RemotePlan;
  notice: string | undefined;
}> {
  const target = await inspectRepository(dir);
  if (target.kind === 'file') throw notADirectory(dir);
  const problems: string[] = [];
  const { planRemote } = await import('./remotes.js'); // GitHub's client: loaded only when a run starts
  const gh = await planRemote(github, target, dir, settings);
  if (target.kind === 'repository' && target.branch === null)
    problems.push(
      `${dir} has a detached HEAD: check out the branch the result should land on (git switch <branch>).`,
    );
  const origin = gh.plan?.origin ?? (target.kind === 'repository' ? target.origin : undefined);
  problems.push(
    ...kind.problems(settings, { origin }),
    ...gh.problems,
    ...(await sandboxProblems(checks, settings.sandbox)),
  );
  // GitHub's rate limit alone stopped the checks: nothing is wrong with the command, run it later.
  if (gh.rateLimitedUntil !== undefined && problems.length === 1)
    throw new StopError('rate-limited', cannotStart(kind.name, problems), {
      then: `Run the same command again after ${gh.rateLimitedUntil.toISOString()}.`,
    });
  if (problems.length > 0 || gh.plan === undefined)
    throw new ConfigError(`${cannotStart(kind.name, problems)}\n${STOPS.refused.next}`);
  // A corrupt, foreign or newer state file is refused here, before the repository is touched.
  const state = target.kind === 'missing' ? undefined : await makerStateFile(dir).load();
  return { target, state, remote: gh.plan, notice: gh.notice };
}

/**
 * Checks a person asked for by name, which a machine without a sandbox refuses (rather than run
 * unconfined or quietly skip): subtasks' checks asked for explicitly (`--run-checks`), a person's
 * overall check. Checks on by default are not here: without a sandbox the run goes on, unverified.
 */
export interface ChecksWanted {
  readonly runChecks?: boolean | undefined;
  readonly check?: string | undefined;
}

/** The checks a started run was explicitly asked for: the overall one on its root. */
export function checksOfRun(run: Run): ChecksWanted {
  return { check: run.nodes[run.rootId]?.check };
}

/**
 * Checks run only inside a sandbox: when some are wanted and none works here, why. A
 * `MAKER_SANDBOX` that names no choice is refused whatever is wanted.
 */
export async function sandboxProblems(
  checks: ChecksWanted,
  sandbox: SandboxSettings,
): Promise<string[]> {
  const problem = sandboxChoiceProblem(sandbox.choice);
  if (problem !== undefined) return [problem];
  if (checks.runChecks !== true && checks.check === undefined) return [];
  return (await findSandbox(sandbox.path, sandbox.choice)) === undefined ? [NO_SANDBOX] : [];
}

/**
 * When the branch a run lands on is checked out with uncommitted changes, the landing will be
 * refused (MAKER never overwrites a person's work): what to say at the start of the run.
 */
export function landingNotice(target: Target, resume: string): string | undefined {
  if (target.kind !== 'repository' || target.branch === null || target.uncommitted.length === 0)
    return undefined;
  const files = target.uncommitted.slice(0, 5).join(', ');
  const more = target.uncommitted.length > 5 ? `, and ${target.uncommitted.length - 5} more` : '';
  return `${target.branch} is checked out with uncommitted changes (${files}${more}): the result cannot land on it while they are there. Commit or stash them before the run ends, or the run stops before landing (then ${resume} lands it).`;
}
