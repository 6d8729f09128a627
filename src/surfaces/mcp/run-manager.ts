import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { AbortedError, makeRedactor, UsageError, type Redactor } from '../../core/errors.js';
import type { Run, StartIntent } from '../../core/tree/schema.js';
import type { EngineEvent } from '../../core/events.js';
import type { RunEngine } from '../../app/run-engine.js';
import { landingNotice } from '../../app/start/preflight.js';
import { startRun } from '../../app/start-run.js';
import { answerQuestion, answerWhereAsked } from '../../app/answer-question.js';
import { readSettings, type Settings } from '../../app/settings.js';
import { settledEnv } from '../../app/env.js';
import { confineRepo, findRunDir, findStateDirs } from './confine.js';
import { latestRun, once } from './latest-run.js';
import {
  interruptedStarts,
  nothingToResume,
  refuseDemoFinish,
  startToFinish,
} from './start-checks.js';
import { resumeRun } from '../../app/resume-run.js';
import { cancelRun, type Cancelled } from '../../app/cancel-run.js';
import { workspaceDriver } from '../../app/run-status.js';
import type { Driver } from '../../core/view/standing.js';
import { planFinish, planStart } from './start-plan.js';
import { resumeSteps, startSteps } from './start-record.js';
import { tally } from './run-result.js';
import { RunViews } from './run-view.js';
import { Workspaces, type Lease, type Workspace } from './workspaces.js';
import { SetUps } from './set-ups.js';
import type { StartInput } from './start-input.js';

export type { StartInput };

/**
 * The runs of one MCP server process: one engine per repository (so one writer per state file, with
 * a lock against other processes, held only while the server uses it: see {@link Workspaces}), runs
 * driven in the background, waits that end on a question, the end of the run, or a timeout.
 */
export class RunManager {
  readonly #defaultDir: string;
  readonly #settings: Settings;
  readonly #workspaces: Workspaces;
  readonly #runDirs = new Map<string, string>();
  /** The runs tool calls are setting up now, one per repository. */
  readonly #setUps = new SetUps();
  /** The runs driven now: each holds a lease on its workspace until it ends or stops. */
  readonly #active = new Map<
    string,
    { controller: AbortController; done: Promise<void>; workspace: Workspace }
  >();
  readonly #views: RunViews;

  /** The one redactor for what the server sends back: the configured keys never leave it. */
  readonly redact: Redactor;

  constructor(options: {
    workspaceDir: string;
    env: Readonly<Record<string, string | undefined>>;
  }) {
    // Gemini CLI passes an unset setting as its literal `${NAME}`: unset for every reader.
    this.#settings = readSettings(settledEnv(options.env));
    this.redact = makeRedactor(this.#settings.secrets);
    const dir = resolve(options.workspaceDir);
    // The real path: runs are keyed by it, so a symlinked spelling never makes a second engine.
    this.#defaultDir = existsSync(dir) ? realpathSync(dir) : dir;
    this.#workspaces = new Workspaces(this.#settings);
    this.#views = new RunViews({
      lease: (dir) => this.#workspaces.lease(dir),
      isActive: (runId) => this.#active.has(runId),
      answer: (runId, questionId, answer) => this.answer(runId, questionId, answer),
      resume: (runId) => this.resume(runId),
      redact: this.redact,
    });
  }

  /**
   * Starts a run in the background, after checking everything it needs (the worker and its keys,
   * the repository, the state file): when anything is missing, nothing is created or changed.
   * Then, as `maker run` does: the workspace's lock, the run's intent recorded, and only then its
   * first side effect (`git init`, the GitHub repository); a kill after the intent leaves a start
   * that `maker_resume` (or `maker resume`) finishes.
   */
  async start(
    input: StartInput,
    signal?: AbortSignal,
  ): Promise<{ runId: string; dir: string; simulated: boolean; notice?: string }> {
    const dir = await confineRepo(this.#defaultDir, input.repo);
    return this.#claim(dir, 'maker_start', undefined, () => this.#start(input, dir, signal));
  }

  /** `call` setting a run up in `dir` (see {@link SetUps}), its workspace kept open while it does. */
  #claim<T>(dir: string, call: string, runId: string | undefined, setUp: () => Promise<T>) {
    return this.#setUps.claim(dir, call, runId, this.#running(), async () => {
      // A workspace open here now (its live view) stays open, its lock held, through the set-up.
      const kept = await this.#workspaces.borrow(dir)?.catch(() => undefined);
      try {
        return await setUp();
      } finally {
        await kept?.release();
      }
    });
  }

  /** The run `runId` once the `maker_resume` of it under way here ends; undefined when none is. */
  #resumingNow(runId: string): Promise<Run> | undefined {
    return this.#setUps.resuming(runId)?.then(async () => (await this.run(runId)).run);
  }

  /** The runs driven now, with their repositories. */
  #running(): [string, string | undefined][] {
    return [...this.#active.keys()].map((id) => [id, this.#runDirs.get(id)]);
  }

  async #start(
    input: StartInput,
    dir: string,
    signal: AbortSignal | undefined,
  ): Promise<{ runId: string; dir: string; simulated: boolean; notice?: string }> {
    const { kind, target, remote, quota, githubNotice, intent } = await planStart(
      input,
      dir,
      this.#settings,
      signal,
    );
    // Cancelled while it checked: nothing was made, and nothing will be.
    if (signal?.aborted === true) throw new AbortedError(signal.reason);
    const {
      runId,
      held: lease,
      made: setUp,
    } = await startRun(
      { dir, intent, settings: this.#settings },
      startSteps(dir, remote, this.#workspaces, this.#settings),
    );
    this.#runDirs.set(runId, dir);
    await this.#drive(runId, lease);
    const notices = [
      quota.text === undefined
        ? undefined
        : `${quota.text.charAt(0).toUpperCase()}${quota.text.slice(1)}.`,
      setUp.said === undefined ? undefined : `${setUp.said}.`,
      githubNotice,
      landingNotice(target, 'maker_resume'),
    ].filter((n) => n !== undefined);
    return {
      runId,
      dir,
      simulated: kind.simulated,
      ...(notices.length === 0 ? {} : { notice: notices.join(' ') }),
    };
  }

  /**
   * Finishes a start that a kill interrupted before its run was saved (a `maker_start` or a
   * terminal's `maker run`), as `maker resume` does: checked again as it was recorded (its worker,
   * model access and GitHub repository), then the same start again, which looks up what was
   * already made before making anything; its questions wait for `maker_answer`.
   */
  async #finishStart(dir: string, recorded: StartIntent): Promise<Run> {
    refuseDemoFinish(dir, recorded);
    return this.#claim(dir, 'maker_resume', recorded.id, async () => {
      const { intent, settings, remote } = await planFinish(recorded, dir, this.#settings);
      const { runId, held } = await startRun(
        { dir, intent, settings },
        startSteps(dir, remote, this.#workspaces, settings, true),
      );
      this.#runDirs.set(runId, dir);
      await this.#drive(runId, held);
      return (await this.run(runId)).run;
    });
  }

  /**
   * Continues a run from the state file (after a restart); the latest unfinished one by default,
   * passing over repositories another process works in unless no other has one.
   */
  async resume(runId?: string): Promise<Run> {
    const same = runId === undefined ? undefined : this.#resumingNow(runId);
    if (same !== undefined) return same;
    const dirs = [this.#defaultDir, ...(await findStateDirs(this.#defaultDir))];
    // Each repository's lock and state file read once, however many questions ask about them.
    const lockedElsewhere = once((dir) => this.#workspaces.lockedElsewhere(dir));
    const state = once((dir) => this.#workspaces.state(dir));
    const starts = await interruptedStarts(
      [...dirs, ...this.#runDirs.values()],
      async (dir) => this.#setUps.has(dir) || (await lockedElsewhere(dir)),
    );
    const unfinished = (r: Run) => r.status !== 'done' && r.status !== 'vetoed';
    const latest = (skip?: (dir: string) => Promise<boolean>) =>
      latestRun(
        [this.#defaultDir, ...this.#runDirs.values(), ...dirs],
        async (dir) => (skip !== undefined && (await skip(dir)) ? undefined : state(dir)),
        unfinished,
      );
    // Only a run no other process drives can be put behind an own start newer than it.
    const free = runId === undefined ? await latest(lockedElsewhere) : undefined;
    const found = runId === undefined ? (free ?? (await latest())) : await this.#find(runId);
    const start = startToFinish(starts, runId, free?.run);
    if (start !== undefined) return this.#finishStart(start.dir, start.intent);
    if (found === undefined) throw await nothingToResume(dirs, runId, starts);
    const { dir } = found;
    if (this.#active.has(found.run.id)) return found.run;
    const resuming = this.#resumingNow(found.run.id);
    if (resuming !== undefined) return resuming;
    this.#runDirs.set(found.run.id, dir);
    return this.#claim(dir, 'maker_resume', found.run.id, async () => {
      const { run, held: lease } = await resumeRun(
        { run: found.run, dir, settings: this.#settings, surface: 'mcp' },
        resumeSteps(dir, this.#workspaces),
      );
      await this.#drive(run.id, lease);
      return run;
    });
  }

  /**
   * A run by id, or the latest one in the workspace and the repositories under it, read without
   * taking any lock; `engine` is the one driving it when this server runs it (`active`).
   */
  async run(runId?: string): Promise<{
    run: Run;
    engine: RunEngine | undefined;
    active: boolean;
    /** The process driving it when another one does (a terminal's `maker run`). */
    driver?: Driver | undefined;
  }> {
    const found = runId === undefined ? await this.#latest(() => true) : await this.#find(runId);
    if (found === undefined)
      throw new UsageError(
        runId === undefined
          ? `No runs in ${this.#defaultDir}. Start one with maker_start.`
          : `No run "${runId}" in ${await this.#dirOf(runId)}.`,
      );
    const active = this.#active.get(found.run.id);
    const driver =
      active === undefined && found.run.status === 'running'
        ? await workspaceDriver(found.dir, process.pid)
        : undefined;
    return {
      run: found.run,
      engine: active?.workspace.engine,
      active: active !== undefined,
      driver,
    };
  }

  /** Run `runId` and its repository; undefined when there is no such run. */
  async #find(runId: string): Promise<{ run: Run; dir: string } | undefined> {
    const dir = await this.#dirOf(runId);
    const run = (await this.#workspaces.state(dir))?.runs[runId];
    return run === undefined ? undefined : { run, dir };
  }

  /**
   * The latest run `pick` accepts, in the workspace, the repositories this server ran in, and those
   * under the workspace with a state file (a run started with `repo`, after a restart), except
   * those `skip` says to pass over.
   */
  async #latest(pick: (run: Run) => boolean, skip?: (dir: string) => Promise<boolean>) {
    const dirs = [this.#defaultDir, ...this.#runDirs.values()];
    return latestRun(
      [...dirs, ...(await findStateDirs(this.#defaultDir))],
      async (dir) =>
        skip !== undefined && (await skip(dir)) ? undefined : this.#workspaces.state(dir),
      pick,
    );
  }

  /** Records an answer: through the engine driving the run, or with the workspace opened for it. */
  async answer(runId: string, questionId: string, answer: string) {
    await this.run(runId);
    const lease = await this.#workspaces.lease(await this.#dirOf(runId)).catch((error: unknown) => {
      throw answerWhereAsked(error, questionId);
    });
    try {
      const { engine } = lease.workspace;
      return (await answerQuestion({ engine }, { runId, questionId, answer })).question;
    } finally {
      await lease.release();
    }
  }

  /**
   * Stops a run where it is driven: here (this server's own), or a terminal's `maker run` on this
   * machine (see `app/cancel-run.ts`); a run nothing drives is left as it is.
   */
  async cancel(runId: string): Promise<Cancelled> {
    await this.run(runId);
    return cancelRun(await this.#dirOf(runId), {
      runId,
      here: async (id) => {
        const active = this.#active.get(id);
        if (active === undefined) return false;
        active.controller.abort(new Error('Cancelled with maker_cancel.'));
        await active.done;
        return true;
      },
    });
  }

  /**
   * Waits until the run asks a question, ends, or `seconds` pass; reports each event to `onEvent`.
   * Returns at once when a question is already pending or the run is not running (or has ended).
   */
  async wait(
    runId: string,
    seconds: number,
    onEvent: (event: EngineEvent, tally?: string) => void,
    signal?: AbortSignal,
  ): Promise<Run> {
    const { run, engine } = await this.run(runId);
    // A run that has ended is not running, even while its end is still being saved.
    if (
      engine === undefined ||
      run.status !== 'running' ||
      run.questions.some((q) => q.answer === undefined)
    )
      return run;
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), seconds * 1000);
    signal?.addEventListener('abort', () => stop.abort(), { once: true });
    try {
      for await (const event of engine.events(stop.signal)) {
        if (event.runId !== runId) continue;
        onEvent(event, tally(await engine.getRun(runId).catch(() => undefined)));
        if (event.type === 'question-asked' || event.type === 'run-end') break;
      }
    } finally {
      clearTimeout(timer);
      stop.abort();
    }
    return run;
  }

  /**
   * The address of the live view of a run (started on first use, one per repository, served from
   * this process): it follows the engine's events, and answers go where `maker_answer` sends them.
   */
  async viewUrl(runId: string): Promise<string> {
    return this.#views.url(await this.#dirOf(runId), runId);
  }

  /** Stops every run (their state is saved) and releases the workspace locks. */
  async close(): Promise<void> {
    await this.#views.close();
    for (const { controller } of this.#active.values())
      controller.abort(new Error('The maker server is shutting down.'));
    await Promise.all([...this.#active.values()].map((a) => a.done));
    await this.#workspaces.close();
  }

  /**
   * Drives a run in the background, with `lease` on its workspace (released when the run ends or
   * stops, which closes the workspace when nothing else uses it); resolves once the run has started
   * (its first event) or ended.
   */
  #drive(runId: string, lease: Lease): Promise<void> {
    if (this.#active.has(runId)) return lease.release();
    const { workspace } = lease;
    const controller = new AbortController();
    const listening = new AbortController();
    const events = workspace.engine.events(listening.signal);
    const done = workspace.engine
      .run(runId, { signal: controller.signal })
      .then(
        () => undefined,
        (error: unknown) => {
          process.stderr.write(
            this.redact(
              `maker: run ${runId} stopped: ${error instanceof Error ? error.message : String(error)}\n`,
            ),
          );
        },
      )
      .finally(async () => {
        this.#active.delete(runId);
        await lease.release();
      });
    this.#active.set(runId, { controller, done, workspace });
    const started = (async () => {
      for await (const event of events) if (event.runId === runId) return;
    })();
    return Promise.race([started, done]).finally(() => listening.abort());
  }

  /** The repository a run lives in: remembered, or found under the workspace (after a restart). */
  async #dirOf(runId: string | undefined): Promise<string> {
    if (runId === undefined) return this.#defaultDir;
    const known = this.#runDirs.get(runId);
    if (known !== undefined) return known;
    const found = await findRunDir(this.#defaultDir, runId);
    if (found !== undefined) this.#runDirs.set(runId, found);
    return found ?? this.#defaultDir;
  }
}
