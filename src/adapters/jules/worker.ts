import { AbortedError } from '../../core/errors.js';
import { abortableSleep } from '../../core/sleep.js';
import { sentences } from '../../core/text.js';
import type { Worker, WorkerHooks, WorkerOutput, WorkerTask } from '../../ports/worker.js';
import { JulesError, type CallOptions, type CreateSessionRequest } from './client.js';
import { followSession } from './follow.js';
import { createSessionOnce } from './create.js';
import { RunningSessions } from './running.js';
import { matchingSessions, sessionMatch, type SessionMatch } from './match.js';
import { SessionBudgetError, stopsRun } from './errors.js';
import { Slots } from './slots.js';
import type { RefPublisher } from '../../ports/ref-publisher.js';
import type { JulesWorkerOptions } from './worker-options.js';
import { prompt, sessionTitle } from './prompt.js';
import { SourceGate } from './source.js';
import { PollSchedule } from './poll-schedule.js';

export { SessionBudgetError } from './errors.js';
export type { JulesWorkerOptions } from './worker-options.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a session is given to finish, by default. */
const SESSION_TIMEOUT_MS = 45 * 60_000;

/**
 * Jules as a MAKER worker: each candidate slot is one Jules session started on the leaf's branch
 * (published to the remote at the leaf's base), polled with backoff to a terminal state, its
 * changeSet the candidate. The session id is recorded the moment it exists and kept on the slot
 * whatever happens later; after a crash, or a create whose reply was lost, the slot finds its
 * session by title (`maker <run> n-<node> cand-<slot>`) before creating one, so no slot ever pays
 * for two sessions. Plans are approved automatically; a failed, stalled, questioning or patch-less
 * session is a red-flagged candidate. Jules' own failures (an outage, a rate or plan limit, a
 * refused key) never flag a candidate: the slot waits them out, reporting the wait, or the run
 * stops (every slot at once, each keeping its session for `maker resume`).
 */
export class JulesWorker implements Worker {
  readonly id = 'jules';
  readonly limitsItself = true; // the plan's `concurrency` bounds its sessions
  readonly capacity: number;
  readonly #o: JulesWorkerOptions;
  readonly #slots: Slots;
  readonly #running: RunningSessions;
  readonly #publisher: Pick<RefPublisher, 'publish'>;
  readonly #source: SourceGate;
  readonly #polls: PollSchedule;

  constructor(options: JulesWorkerOptions) {
    this.#o = options;
    this.#polls = new PollSchedule({
      initial: options.pollMs?.initial ?? 15_000,
      factor: options.pollMs?.factor ?? 1.5,
      max: options.pollMs?.max ?? 60_000,
    });
    this.capacity = options.concurrency ?? 3;
    // A session given up on is counted as long again as a session is given to finish.
    this.#running = new RunningSessions({
      now: () => this.#now(),
      leftForMs: options.timeoutMs ?? SESSION_TIMEOUT_MS,
    });
    this.#slots = new Slots(this.capacity);
    this.#publisher = options.publisher;
    this.#source = new SourceGate(options.client, options.source, {
      ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
      ...(options.sourceRetryMs === undefined ? {} : { retryMs: options.sourceRetryMs }),
    });
  }

  /**
   * Ahead of sampling: publishes the branch a leaf's sessions would start from, and checks the
   * source once (a source Jules cannot see is left for `run`, which can ask about it).
   */
  sessionUrl(id: string): string | undefined {
    return this.#o.sessionUrl?.(id);
  }

  async prepare(
    task: Pick<WorkerTask, 'branch' | 'baseCommit'>,
    signal?: AbortSignal,
  ): Promise<void> {
    await Promise.all([
      this.#publisher.publish(task.branch, task.baseCommit),
      this.#source.probe(signal),
    ]);
  }

  async run(
    task: WorkerTask,
    slot: number,
    signal?: AbortSignal,
    hooks: WorkerHooks = {},
  ): Promise<WorkerOutput> {
    if (task.integration !== undefined)
      return (
        this.#o.integrations?.run(task, slot, signal, hooks) ??
        Promise.resolve({
          ok: false,
          reason:
            'The Jules worker does not resolve merge conflicts and has no integration worker (the gemini worker does them).',
        })
      );
    const release = await this.#slots.acquire(signal);
    /** The slot's session, once known: kept on whatever this slot returns. */
    const known: { id: string | undefined } = { id: hooks.externalId };
    try {
      this.#slots.throwIfHalted(signal);
      return await this.#run(task, slot, signal, this.#slots.haltable(signal), hooks, known);
    } catch (error) {
      // Halted meanwhile: the sibling's reason, not the interrupted wait, is what stops the run.
      const halted = this.#slots.halted;
      if (error instanceof AbortedError && halted !== undefined && signal?.aborted !== true)
        throw halted;
      if (stopsRun(error)) {
        this.#slots.halt(error as Error, signal);
        throw error;
      }
      if (error instanceof AbortedError || !(error instanceof JulesError)) throw error;
      return {
        ok: false,
        reason: sentences(`Jules: ${error.message}`),
        ...(known.id === undefined ? {} : { externalId: known.id }),
      };
    } finally {
      release();
    }
  }

  async #run(
    task: WorkerTask,
    slot: number,
    signal: AbortSignal | undefined,
    waits: AbortSignal,
    hooks: WorkerHooks,
    known: { id: string | undefined },
  ): Promise<WorkerOutput> {
    const { client } = this.#o;
    const call: CallOptions = { signal: waits, onWait: hooks.wait };
    // A create under way when the run halts is let finish (only the run's end cancels it), so
    // its session is recorded rather than left for a lookup.
    const creating: CallOptions = { ...call, requestSignal: signal };
    const title = sessionTitle(task, slot);
    let id = hooks.externalId;
    /** This process created the session (it is still queued: the first look waits). */
    let created = false;
    /** What identifies the slot's session, when it may have bought more than one. */
    let extras: SessionMatch | undefined;
    if (id === undefined) {
      // Usually done already (`prepare`); the source first, for its actionable errors.
      const source = await this.#source.checked(waits, hooks);
      const request: CreateSessionRequest = {
        prompt: prompt(task),
        title,
        source,
        startingBranch: task.branch,
        requirePlanApproval: this.#o.planReview === true,
      };
      const match = sessionMatch(request);
      if (hooks.resumed === true) {
        const found = await matchingSessions(client, match, call);
        id = found[0];
        // An earlier process's create of unknown outcome, sent again, may have bought two.
        if (found.length > 1) extras = match;
      }
      if (id === undefined) {
        await this.#publisher.publish(task.branch, task.baseCommit);
        await this.#reserve(hooks);
        const made = await createSessionOnce(
          {
            client,
            running: this.#running,
            sleep: this.#sleep,
            now: this.#now,
            recheckMs: this.#o.limitRecheckMs ?? 60_000,
            ...(this.#o.lookupWindowMs === undefined
              ? {}
              : { lookupWindowMs: this.#o.lookupWindowMs }),
          },
          request,
          creating,
        );
        id = made.id;
        created = true;
        // A create whose reply was lost, sent again: the first may have reached Jules late.
        if (made.requests > 1) extras = match;
      }
    }
    known.id = id;
    // Counted from now: recording it may take a while, and Jules counts it already.
    this.#running.add(id);
    /** The last state a look saw. */
    const seen: { state?: string | undefined } = {};
    try {
      if (id !== hooks.externalId) await hooks.recordExternalId?.(id);
      return await followSession(
        {
          client,
          polls: this.#polls,
          halted: () => this.#slots.halted,
          planReview: this.#o.planReview === true,
          timeoutMs: this.#o.timeoutMs ?? SESSION_TIMEOUT_MS,
          initialPollMs: this.#o.pollMs?.initial ?? 15_000,
          sleep: this.#sleep,
          now: this.#now,
        },
        { task, slot, id, created },
        call,
        hooks,
        seen,
      );
    } finally {
      // Not seen ended (a deadline, a discarded question, a cancel): Jules may still run it.
      this.#running.end(id, seen.state !== 'COMPLETED' && seen.state !== 'FAILED');
      if (extras !== undefined) await this.#orphans(extras, id, call, hooks);
    }
  }

  /**
   * Sessions this slot bought besides `id` (a create of unknown outcome that Jules carried out after
   * another took its place, in this process or in one a resume follows): recorded, so they are
   * counted, and archived. Best effort: a failed look or archive loses nothing.
   */
  async #orphans(
    match: SessionMatch,
    id: string,
    call: CallOptions,
    hooks: WorkerHooks,
  ): Promise<void> {
    const { client } = this.#o;
    const others = await matchingSessions(client, match, call).catch(() => [] as string[]);
    for (const other of others.filter((o) => o !== id)) {
      await hooks.recordExtraId?.(other);
      await client.archiveSession(other, call).catch(() => undefined);
    }
  }

  /** Counts the session against the daily budget before it is created; a spent budget stops the run. */
  async #reserve(hooks: WorkerHooks): Promise<void> {
    const limit = this.#o.dailySessions;
    if (limit === undefined || hooks.reserveSession === undefined) return;
    const granted = await hooks.reserveSession({ limit, windowMs: DAY_MS });
    if (!granted.ok)
      throw new SessionBudgetError(
        `The Jules session budget is spent: ${granted.used} sessions started in the last 24 hours (budget ${limit}). The next can start at ${granted.nextAt.toISOString()}: resume the run then, or now with a larger budget if your Jules plan allows more (maker resume --jules-plan pro|ultra or --jules-daily-sessions N).`,
        granted.nextAt,
      );
  }

  readonly #sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    (this.#o.sleep ?? abortableSleep)(ms, signal);

  readonly #now = (): number => (this.#o.now ?? Date.now)();
}
