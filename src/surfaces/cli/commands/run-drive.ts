import { UsageError } from '../../../core/errors.js';
import { isSimulatedRun } from '../../../core/tree/simulated.js';
import type { Run, RunConfig } from '../../../core/tree/schema.js';
import type { RunEngine, RunOutcome } from '../../../app/run-engine.js';
import type { Workspace } from '../../../ports/workspace.js';
import { summarise } from '../../../core/view/summary.js';
import { landingNotice, type Target } from '../../../app/start/preflight.js';
import { engineOver, type OpenedWorkspace } from '../../../app/open-engine.js';
import type { RoleOptions } from '../../../app/workers/index.js';
import type { Settings } from '../../../app/settings.js';
import { type CliContext } from '../define.js';
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

/**
 * A resume's --hitl choice when none is given: the mode the run was started with, where this
 * process can keep it. A run that waited for answers (at its terminal or on its page) asks again at
 * this terminal; off one, it saves its questions and says where to answer (nobody could answer a
 * wait here). With --view, the page's default.
 */
export function resumedHitl(
  given: Hitl | undefined,
  recorded: RunConfig['hitl'],
  io: CliIo,
  view: boolean,
): Hitl {
  if (given !== undefined) return given;
  if (view || recorded === 'wait') return defaultHitl(io, view);
  return recorded;
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
 * The engine over a workspace, with roles made per run (so a run's worker shares its GitHub
 * publisher) and, with a token, each GitHub run's remote.
 */
export async function wire(
  dir: string,
  workspace: OpenedWorkspace,
  settings: Settings,
  token: string | undefined,
  options: RoleOptions,
): Promise<{ engine: RunEngine; roles: Record<string, never> }> {
  // The engine closes the roles it makes.
  return { engine: await engineOver(dir, workspace, settings, token, options), roles: {} };
}

/** Runs the engine with progress (and questions at a terminal), then prints the outcome. */
export async function drive(
  { io, signal }: CliContext,
  r: {
    engine: RunEngine;
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
  // A Ctrl-C that came before the run was driven stops it at once.
  if (signal?.aborted === true) runControl.abort(signal.reason);
  else signal?.addEventListener('abort', () => runControl.abort(signal.reason), { once: true });
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
