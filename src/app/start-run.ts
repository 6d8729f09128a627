import type { GitWorkspace } from '../adapters/git/git-workspace.js';
import { StopError } from '../core/stops.js';
import type { GitHubRun, StartIntent } from '../core/tree/schema.js';
import type { RunEngine } from './run-engine.js';
import type { RemotePlan } from './start/remotes.js';
import { setUpStop } from './start/set-up-stop.js';
import { openWorkspace } from './wiring/wiring.js';
import type { Settings } from './settings.js';

/** What a start's set-up made: the repository, opened, and the GitHub repository it recorded. */
export type SetUp = Awaited<ReturnType<RemotePlan['setUp']>>;

/**
 * Undoes a start whose set-up failed after its intent was recorded: `nothingMade` (the failure is
 * sure nothing was created) forgets the intent and leaves the folder as it was.
 */
export type UndoStart = (nothingMade: boolean) => Promise<void>;

/** The steps a surface supplies to {@link startRun}, each at its own place in the start. */
export interface StartSteps<Held> {
  /** Takes the workspace's lock and records `intent`, before any side effect. */
  record(intent: StartIntent): Promise<UndoStart>;
  /**
   * The remote the start sets up, once the intent is saved (the demo serves its own GitHub here and
   * checks against it). A refusal undoes the start with `undo` first; an interruption leaves it,
   * for `maker resume` to finish.
   */
  remote(undo: UndoStart): Promise<RemotePlan>;
  /** What the surface holds once the set-up is done (its lease); a failure here is a set-up failure. */
  hold(made: SetUp, remote: RemotePlan): Promise<Held>;
  /**
   * The engine the run is created in, after the set-up and once the default branch is read (the
   * surface's messages go here; it may close `made.workspace` when the engine has its own).
   */
  engine(made: SetUp, held: Held, remote: RemotePlan): Promise<RunEngine>;
  /** The GitHub repository as the run records it (the demo marks its own fake). */
  github?(record: GitHubRun): GitHubRun;
  /** Called when anything after {@link hold} fails, before the error is thrown on. */
  failed?(made: SetUp, held: Held): Promise<void>;
}

/** A started run: created in `engine`, not yet driven. */
export interface StartedRun<Held> {
  readonly runId: string;
  readonly engine: RunEngine;
  readonly made: SetUp;
  readonly held: Held;
  readonly remote: RemotePlan;
}

/**
 * The one start of a run, for `maker run`, `maker demo`, `maker resume` of a start, and
 * `maker_start`: the intent recorded first (lock taken), then the remote set up (a failure sure to
 * have made nothing undoes the start; any set-up failure is a {@link StopError} from the table),
 * then the run created with its intent, check and GitHub repository. Everything is checked before
 * this is called; the surface drives the run it returns.
 */
export async function startRun<Held>(
  request: { readonly dir: string; readonly intent: StartIntent; readonly settings: Settings },
  steps: StartSteps<Held>,
): Promise<StartedRun<Held>> {
  const { dir, intent, settings } = request;
  const undo = await steps.record(intent);
  settings.seam?.('start:intent-saved');
  const remote = await steps.remote(undo);
  const { made, held } = await setUp(dir, remote, settings, steps, undo);
  try {
    settings.seam?.('start:set-up');
    const defaultBranch = await made.workspace.currentBranch();
    const engine = await steps.engine(made, held, remote);
    const record =
      made.record === undefined ? undefined : (steps.github?.(made.record) ?? made.record);
    const runId = await engine.create(
      intent.idea,
      { ...intent.config, defaultBranch },
      {
        intent,
        ...(intent.check === undefined ? {} : { check: intent.check }),
        ...(record === undefined ? {} : { github: record }),
      },
    );
    return { runId, engine, made, held, remote };
  } catch (error) {
    await steps.failed?.(made, held);
    throw error;
  }
}

/** The remote's set-up and what the surface holds after it, failures undone and told as stops. */
async function setUp<Held>(
  dir: string,
  remote: RemotePlan,
  settings: Settings,
  steps: StartSteps<Held>,
  undo: UndoStart,
): Promise<{ made: SetUp; held: Held }> {
  const passed: string[] = [];
  let made: SetUp | undefined;
  try {
    made = await remote.setUp(
      dir,
      (): Promise<GitWorkspace> => openWorkspace(dir, true, settings),
      (step) => (passed.push(step), settings.seam?.(step)),
    );
    return { made, held: await steps.hold(made, remote) };
  } catch (error) {
    const stop = setUpStop(error, passed);
    await undo(stop instanceof StopError && stop.nothingMade);
    throw stop;
  }
}
