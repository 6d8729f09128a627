import { AbortedError } from '../../core/errors.js';
import { abortableSleep } from '../../core/sleep.js';
import { clause, sentences } from '../../core/text.js';
import type { Worker, WorkerHooks, WorkerOutput, WorkerTask } from '../../ports/worker.js';
import { JulesError, type CallOptions, type CreateSessionRequest } from './client.js';
import {
  MAX_REPLIES_PER_SESSION,
  sessionCandidate,
  sessionPatch,
  stuckSession,
} from './outputs.js';
import { allActivities, readSession } from './reads.js';
import { createSessionOnce } from './create.js';
import { RunningSessions } from './running.js';
import { matchingSessions, sessionMatch, type SessionMatch } from './match.js';
import { SessionBudgetError, stopsRun } from './errors.js';
import { Slots } from './slots.js';
import type { RefPublisher } from '../../ports/ref-publisher.js';
import type { JulesWorkerOptions } from './worker-options.js';
import { planChoice, planText, prompt, sessionTitle } from './prompt.js';
import { SourceGate } from './source.js';
import { PollSchedule, WAITING_ON_SOMEONE } from './poll-schedule.js';

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
    await this.#slots.acquire(signal);
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
      this.#slots.release();
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
      return await this.#follow(task, slot, id, created, call, hooks, seen);
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

  /**
   * Polls the session to a terminal state, approving plans and relaying questions on the way;
   * `seen` keeps the last state a look saw.
   */
  // eslint-disable-next-line max-lines-per-function -- over 80 lines: to be split by job (#40)
  async #follow(
    task: WorkerTask,
    slot: number,
    id: string,
    created: boolean,
    call: CallOptions,
    hooks: WorkerHooks,
    seen: { state?: string | undefined },
  ): Promise<WorkerOutput> {
    const { client } = this.#o;
    const signal = call.signal;
    const externalId = id;
    const { ask, choose } = hooks;
    const now = this.#now;
    const since = now();
    // Moved on by the time a person takes to answer: that time is not the session's.
    let deadline = since + (this.#o.timeoutMs ?? SESSION_TIMEOUT_MS);
    const person = async <T>(answer: () => Promise<T>): Promise<T> => {
      const asked = now();
      const value = await answer();
      deadline += now() - asked;
      return value;
    };
    const waits = this.#polls.waits();
    let delay = this.#o.pollMs?.initial ?? 15_000;
    // A session created a moment ago is still queued: the first look waits one delay. A session
    // re-attached after a restart may have finished long ago: look at once.
    let wait = created;
    // Its time then includes a person's (or a pause): it says nothing of how long the work takes.
    let waitedOnSomeone = false;
    // Waits run from the previous look's sending (the first from now): a slow answer does not push
    // every later look back by its latency, and a look is never sent before the last is answered.
    let lookedAt = since;
    /** The last answer Jules refused (400): harmless unless the session still waits for one. */
    let refusedMessage: JulesError | undefined;
    /** Plans approved and answers sent (here, or as Jules' activities count them): see MAX_REPLIES_PER_SESSION. */
    let approvals = 0;
    let answers = 0;
    for (;;) {
      if (wait) {
        const halted = this.#slots.halted;
        if (halted !== undefined) throw halted;
        delay = waits.next().value;
        const rest = lookedAt + delay - now();
        if (rest > 0) await this.#sleep(rest, signal);
      }
      wait = true;
      lookedAt = now();
      const session = await readSession(client, id, call, (signal) => this.#sleep(delay, signal));
      seen.state = session.state ?? undefined;
      if (WAITING_ON_SOMEONE.has(session.state ?? '')) waitedOnSomeone = true;
      if (session.state !== 'AWAITING_USER_FEEDBACK') refusedMessage = undefined;
      if (
        created &&
        !waitedOnSomeone &&
        (session.state === 'COMPLETED' || session.state === 'FAILED')
      )
        // Plus the clock's resolution (1 ms): later first looks are never earlier than this one.
        this.#polls.finished(lookedAt - since + 1);
      switch (session.state) {
        case 'COMPLETED':
          // The session's outputs carry its changeSet; the activities are read only when they do not.
          return sessionCandidate(
            session,
            sessionPatch(session, []) === undefined ? await allActivities(client, id, call) : [],
            task.baseCommit,
            externalId,
          );
        case 'FAILED': {
          const reason = (await allActivities(client, id, call))
            .map((a) => a.sessionFailed?.reason)
            .find(Boolean);
          return {
            ok: false,
            reason: sentences(`The Jules session failed${reason ? `: ${clause(reason)}` : ''}`),
            externalId,
          };
        }
        case 'AWAITING_PLAN_APPROVAL': {
          const activities = await allActivities(client, id, call);
          // Counted by Jules too: approvals sent before a resume (or by anyone) count.
          approvals = Math.max(approvals, activities.filter((a) => a.planApproved != null).length);
          if (approvals >= MAX_REPLIES_PER_SESSION) return this.#stuck(id, 'plan', call);
          if (this.#o.planReview === true && choose !== undefined) {
            const plan = planText(activities);
            const choice = await person(() => choose(planChoice(task, slot, id, plan)));
            if (choice !== 'approve')
              return {
                ok: false,
                reason: `A person vetoed the plan of Jules session ${id}.`,
                externalId,
              };
          }
          approvals += 1;
          await client.approvePlan(id, call).catch((error: unknown) => {
            // Approved already (a retried approval whose first reply was lost): the next look shows it.
            if (!(error instanceof JulesError && error.kind === 'bad-request')) throw error;
          });
          break;
        }
        case 'AWAITING_USER_FEEDBACK': {
          const activities = await allActivities(client, id, call);
          const question = activities
            .map((a) => a.agentMessaged?.agentMessage)
            .filter(Boolean)
            .at(-1);
          answers = Math.max(answers, activities.filter((a) => a.userMessaged != null).length);
          if (refusedMessage !== undefined) throw refusedMessage;
          if (ask !== undefined && question) {
            if (answers >= MAX_REPLIES_PER_SESSION) return this.#stuck(id, 'answer', call);
            answers += 1;
            // The person answers (now, or after a deferred run resumes and re-attaches here).
            await client
              .sendMessage(id, await person(() => ask(question)), call)
              .catch((error: unknown) => {
                // Sent already (a retried message whose first reply was lost), and the session has
                // finished since (400 FAILED_PRECONDITION): the next look shows it. Refused while
                // the session still waits for it, it is an answer Jules will not take.
                if (!(error instanceof JulesError && error.kind === 'bad-request')) throw error;
                refusedMessage = error;
              });
            break;
          }
          return {
            ok: false,
            reason: `The Jules agent stopped to ask${question ? `: "${question}"` : ''}; a candidate that needs help is discarded.`,
            externalId,
          };
        }
        default:
          break;
      }
      // Judged at the look, not at its answer: an answer that comes late says the session was
      // still working when it was asked, and the next look settles it.
      if (lookedAt > deadline)
        return {
          ok: false,
          reason: `The Jules session ${id} did not finish in time (state ${session.state ?? 'unknown'}).`,
          externalId,
        };
    }
  }

  /**
   * A session that waits on someone again after {@link MAX_REPLIES_PER_SESSION} answers (or plan
   * approvals) is stuck, not working: it is archived (best effort) and the candidate red-flagged.
   */
  async #stuck(id: string, waitsFor: 'plan' | 'answer', call: CallOptions): Promise<WorkerOutput> {
    await this.#o.client.archiveSession(id, call).catch(() => undefined);
    return stuckSession(id, waitsFor);
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
