import { checkStart, newRunId } from '../core/tree/run-id.js';
import { setMaxListeners } from 'node:events';
import { AbortedError, MakerError, UsageError } from '../core/errors.js';
import {
  type Question,
  type Run,
  type RunConfig,
  type StateFile,
  type TreeNode,
} from '../core/tree/schema.js';
import { StateSaver } from './run/state-saver.js';
import type { Workspace } from '../ports/workspace.js';
import { newNode } from '../core/tree/nodes.js';
import { processNode } from './compose/compose.js';
import { RunTasks } from './run/run-tasks.js';
import { HitlDesk } from './hitl/hitl.js';
import { EventHub, type EngineEvent, type EngineEventInput } from './events.js';
import { ChecksFailedError, QuestionPendingError } from './run/engine-errors.js';
import { redacted } from './run/redaction.js';
import type { RunContext } from './run/run-context.js';
import { Semaphore } from '../core/semaphore.js';
import { NodeWindow, nodeOrder, nodeWindowSize } from './run/node-window.js';
import {
  ended,
  outcome,
  type MakerEngineDeps,
  type Roles,
  type RunOutcome,
} from './engine-deps.js';

export type { MakerEngineDeps, Roles, RunOutcome } from './engine-deps.js';
import { showWait } from './hitl/waits.js';
import { reserveSession } from './run/session-ledger.js';
import type { RunRemote } from '../ports/remote.js';
import { finish } from './land/finish.js';
import { PullRequestKeeper } from './land/pull-request-keeper.js';
import { releaseStores } from './run/scratch-release.js';
import type { CheckEnvironment } from '../core/checks.js';
import { probeChecks } from './checks/probe-checks.js';
import { applyReopen, ReopenRequested } from './compose/reopen.js';

/**
 * The MAKER run loop over ports: decompose, sample, red-flag, vote, ask, compose, land. All
 * progress lives in the state file, so `run` picks up wherever a previous process stopped.
 */
export class MakerEngine {
  readonly #deps: MakerEngineDeps;
  readonly #now: () => Date;
  readonly #hub = new EventHub();
  #state: StateFile | undefined;
  #loading: Promise<StateFile> | undefined;
  readonly #saver: StateSaver;
  readonly #hitl: HitlDesk;
  #waitSeq = 0;
  #checkEnvironment: CheckEnvironment | undefined;

  constructor(deps: MakerEngineDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
    this.#saver = new StateSaver(deps.store, () => this.#state as StateFile);
    this.#hitl = new HitlDesk({
      now: this.#now,
      save: () => this.#save(),
      emit: (run, event) => this.#emit(run, event),
    });
  }

  /** Every event from now on, as an async iterable (ends when `signal` aborts or `close` is called). */
  events(signal?: AbortSignal): AsyncIterable<EngineEvent> {
    return this.#hub.subscribe(signal);
  }

  close(): void {
    this.#hub.close();
  }

  /** The state file's document, loaded once: concurrent first callers share one load. */
  async state(): Promise<StateFile> {
    this.#loading ??= this.#deps.store.load().then((state) => (this.#state = state));
    return this.#loading;
  }

  async getRun(runId: string): Promise<Run> {
    const run = (await this.state()).runs[runId];
    if (run === undefined) throw new UsageError(`No run "${runId}" in ${this.#deps.store.path}.`);
    return run;
  }

  /**
   * Creates a run (root node, base commit) and saves it; `run` then drives it. `check` is the
   * person's overall check, run (sandboxed) on the composed result before the final veto.
   */
  async create(
    idea: string,
    config: RunConfig,
    // `intent`: the start recorded before anything was made (its id and time are the run's).
    options: {
      check?: string;
      github?: Run['github'];
      intent?: { id: string; createdAt: string };
    } = {},
  ): Promise<string> {
    checkStart(idea, options.check);
    // As the state file holds it: a key pasted into the idea reaches no prompt, commit or title.
    const said = redacted({ secrets: this.#deps.secrets ?? [] }, idea.trim());
    const state = await this.state();
    const baseCommit = await this.#deps.workspace.resolve(config.defaultBranch);
    if (baseCommit === undefined)
      throw new UsageError(`The repository has no branch "${config.defaultBranch}".`);
    const id = options.intent?.id ?? this.#deps.newRunId?.() ?? newRunId(this.#now());
    if (state.runs[id] !== undefined)
      throw new MakerError('run-exists', `A run with id ${id} already exists.`);
    state.runs[id] = {
      id,
      idea: said,
      createdAt: options.intent?.createdAt ?? this.#now().toISOString(),
      status: 'running',
      config,
      baseCommit,
      rootId: 'root',
      nodes: {
        root: newNode('root', null, 0, 0, {
          title: said.slice(0, 200),
          description: said,
          acceptance: [],
          files: [],
          dependsOn: [],
          ...(options.check === undefined ? {} : { check: options.check }),
        }),
      },
      questions: [],
      eventSeq: 0,
      ...(options.github === undefined ? {} : { github: options.github }),
    };
    // The start under way becomes this run, in one save.
    if (state.starting?.id === id) state.starting = undefined;
    await this.#save();
    return id;
  }

  async pendingQuestions(runId: string): Promise<Question[]> {
    return (await this.getRun(runId)).questions.filter((q) => q.answer === undefined);
  }

  /**
   * Records a person's answer. `answer` is an option id, or free text where the question allows it.
   * Throws a {@link UsageError} naming the valid options when it fits none.
   */
  async answer(runId: string, questionId: string, answer: string, auto = false): Promise<Question> {
    return this.#hitl.answer(await this.getRun(runId), questionId, answer, auto);
  }

  /** Drives a run until it is done, vetoed, failed, cancelled or (with `defer`) waiting for a person. */
  async run(runId: string, options: { signal?: AbortSignal } = {}): Promise<RunOutcome> {
    const run = await this.getRun(runId);
    if (run.status === 'done' || run.status === 'vetoed') return outcome(run);
    const signal = options.signal ?? new AbortController().signal;
    // Every waiting paid call listens for cancellation: many listeners are expected.
    setMaxListeners(0, signal);
    const resumed = run.nodes[run.rootId]?.baseCommit !== undefined;
    run.status = 'running';
    run.error = undefined;
    // Waits a killed process left behind are over.
    run.waits = undefined;
    this.#checkEnvironment = await probeChecks(run, this.#deps.workspace, (event) =>
      this.#emit(run, event),
    );
    await this.#save();
    this.#emit(run, { type: 'run-start', idea: run.idea, resumed });

    const semaphore = new Semaphore(run.config.concurrency);
    const made = typeof this.#deps.roles === 'function';
    const remote = run.github === undefined ? undefined : this.#deps.remote?.(run);
    const roles =
      typeof this.#deps.roles === 'function'
        ? await this.#deps.roles(run.config, run)
        : this.#deps.roles;
    // The run's candidates are written into a scratch store of its own (kept for a resume);
    // stores of runs that ended or failed, or that the state no longer has, go first (a failed
    // run's unfinished votes start over, saved before its store goes).
    const kept = releaseStores(this.#state as StateFile, run);
    await this.#save();
    await this.#deps.workspace.sweepScratch?.(kept);
    const scratch = await this.#deps.workspace.scratch?.(run.id);
    try {
      // A pass a reopening stopped is followed by another, once the reopening is applied.
      while (await this.#pass(run, { signal, semaphore, roles, remote, scratch }));
    } finally {
      if (made) await roles.close?.().catch(() => undefined);
    }
    // A run that ended keeps only what it committed: its losing and red-flagged candidates go.
    if (ended(run)) await scratch?.discard();
    else await scratch?.close();
    run.waits = undefined;
    // The end event first, then the save: the state file's eventSeq then counts it, so the journal and
    // the state agree on the cursor, and a later process never reuses the number.
    this.#emit(run, { type: 'run-end', status: run.status, error: run.error });
    await this.#save();
    await this.#deps.store.compact?.(this.#state as StateFile); // a clean stop: the main file is whole
    return outcome(run);
  }

  /**
   * One pass over the run's tree, to its end or until it stops: true when a reopening stopped it
   * (saved on the run; applied at the start of the next pass, as after a crash), else the run's
   * status says how it stopped.
   */
  async #pass(
    run: Run,
    on: {
      signal: AbortSignal;
      semaphore: Semaphore;
      roles: Roles;
      remote: RunRemote | undefined;
      scratch: Workspace | undefined;
    },
  ): Promise<boolean> {
    const { signal, remote } = on;
    const tasks = new RunTasks(signal);
    const { spawn, halt } = tasks;
    const ctx = this.#context(run, on.roles, { signal, halt }, on.semaphore, remote, on.scratch);
    for (const watched of [remote, on.roles]) watched?.watchWaits?.(ctx.services.wait);
    const keeper =
      remote === undefined
        ? undefined
        : new PullRequestKeeper(ctx, remote, this.#deps.pullRequestDebounceMs);
    const unobserve =
      keeper === undefined ? undefined : this.#hub.observe((e) => keeper.observe(e));
    const onHalt = () => this.#hitl.abandon(run.id, halt.reason);
    halt.addEventListener('abort', onHalt, { once: true });
    try {
      const root = run.nodes[run.rootId];
      if (root === undefined)
        throw new MakerError('state-node-missing', `Run ${run.id} has no root node.`);
      if (run.reopening !== undefined) await applyReopen(ctx, run.reopening);
      await spawn(processNode(ctx, root, run.baseCommit, spawn));
      await finish(ctx, () => keeper?.stop() ?? Promise.resolve());
    } catch (error) {
      const errors = [error, ...(await tasks.settle())];
      // The first failure is the cause: what its halt stopped fails with AbortedError after it.
      const hard = tasks.failure?.error ?? errors.find((e) => !(e instanceof QuestionPendingError));
      if (hard instanceof ReopenRequested && !signal.aborted) return true;
      if (hard === undefined) run.status = 'awaiting-human';
      else if (hard instanceof AbortedError || signal.aborted) run.status = 'cancelled';
      else if (hard instanceof ChecksFailedError) {
        run.status = 'failed-checks';
        run.error = hard.message;
      } else {
        run.status = 'failed';
        run.error = hard instanceof Error ? hard.message : JSON.stringify(hard);
      }
    } finally {
      unobserve?.();
      await keeper?.stop();
      halt.removeEventListener('abort', onHalt);
      tasks.close();
    }
    return false;
  }

  #context(
    run: Run,
    roles: Roles,
    { signal, halt }: { signal: AbortSignal; halt: AbortSignal },
    semaphore: Semaphore,
    remote: RunRemote | undefined,
    scratch: Workspace | undefined,
  ): RunContext {
    const state = this.#state as StateFile;
    const window = new NodeWindow(nodeWindowSize(run.config.concurrency, roles.worker), halt);
    // One repository in three roles, each step given the one it needs.
    const workspace = scratch ?? this.#deps.workspace;
    return {
      remote,
      publish: (branch, sha) => {
        // Not awaited on the hot path: failures show when every branch is published before the PR.
        remote?.publisher.publish(branch, sha).catch(() => undefined);
      },
      checkpoint: async (step) => {
        await this.#deps.checkpoint?.(step);
      },
      run,
      workspace,
      checks: workspace,
      landing: workspace,
      ...(this.#checkEnvironment === undefined ? {} : { checkEnvironment: this.#checkEnvironment }),
      planner: roles.planner,
      worker: roles.worker,
      signal,
      halt,
      now: this.#now,
      secrets: this.#deps.secrets ?? [],
      redactOutput: this.#deps.redactOutput,
      save: (...nodes: TreeNode[]) => this.#save(nodes),
      saveSoon: (...nodes: TreeNode[]) => this.#saver.soon(nodes),
      emit: (event) => this.#emit(run, event),
      // Halted, no new paid work starts; work under way holds `signal`, and finishes.
      paid: (work, options) => semaphore.run(work, halt, options),
      claim: (options) => semaphore.acquire(halt, options),
      enter: (n) => window.enter(nodeOrder(run.nodes, n)),
      services: {
        reserveSession: (workerId, budget) =>
          reserveSession({ state, now: this.#now, save: () => this.#save() }, workerId, budget),
        wait: (wait) =>
          showWait(run, wait, {
            now: this.#now,
            id: () => `${wait.service}-${++this.#waitSeq}`,
            save: () => void this.#save().catch(() => undefined),
            emit: (event) => this.#emit(run, event),
          }),
      },
      ask: (question, auto) =>
        this.#hitl.ask(run, question, auto, halt, (wait) => window.lend(wait)),
    };
  }

  #emit(run: Run, event: EngineEventInput): void {
    run.eventSeq += 1;
    const stamped = {
      ...event,
      seq: run.eventSeq,
      runId: run.id,
      at: this.#now().toISOString(),
    } as EngineEvent;
    this.#hub.publish(stamped);
    try {
      void Promise.resolve(this.#deps.journal?.(stamped)).catch(() => undefined);
    } catch {
      // The journal is an observer: it cannot break the run.
    }
  }

  /** Saves the state file now (after a surface changed a run it got from {@link getRun}). */
  persist(): Promise<void> {
    return this.#save();
  }

  #save(nodes: readonly TreeNode[] = []): Promise<void> {
    return this.#saver.save(nodes);
  }
}
