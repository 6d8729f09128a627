import { clause, sentences } from '../../core/text.js';
import type { WorkerHooks, WorkerOutput, WorkerTask } from '../../ports/worker.js';
import { JulesError, type CallOptions, type JulesClient } from './client.js';
import {
  MAX_REPLIES_PER_SESSION,
  sessionCandidate,
  sessionPatch,
  stuckSession,
} from './outputs.js';
import { type PollSchedule, WAITING_ON_SOMEONE } from './poll-schedule.js';
import { planChoice, planText } from './prompt.js';
import { allActivities, readSession } from './reads.js';
import type { JulesSession } from './schemas.js';

/** What following a session takes from its worker. */
export interface FollowContext {
  readonly client: JulesClient;
  readonly polls: PollSchedule;
  /** Why the worker's slots halted (a sibling stopped the run), if they did. */
  readonly halted: () => Error | undefined;
  /** Whether a person reviews plans (when the run can ask them to choose). */
  readonly planReview: boolean;
  /** How long the session is given to finish (ms). */
  readonly timeoutMs: number;
  /** The wait before a look, until the schedule has given one (ms). */
  readonly initialPollMs: number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now: () => number;
}

/** One slot's session, to follow. */
export interface FollowedSession {
  readonly task: WorkerTask;
  readonly slot: number;
  readonly id: string;
  /** This process created it (it is still queued: the first look waits). */
  readonly created: boolean;
}

/**
 * Polls the session to a terminal state, approving plans and relaying questions on the way;
 * `seen` keeps the last state a look saw.
 */
export function followSession(
  context: FollowContext,
  session: FollowedSession,
  call: CallOptions,
  hooks: WorkerHooks,
  seen: { state?: string | undefined },
): Promise<WorkerOutput> {
  return new Follow(context, session, call, hooks, seen).run();
}

class Follow {
  readonly #c: FollowContext;
  readonly #s: FollowedSession;
  readonly #call: CallOptions;
  readonly #hooks: WorkerHooks;
  readonly #seen: { state?: string | undefined };
  readonly #since: number;
  // Moved on by the time a person takes to answer: that time is not the session's.
  #deadline: number;
  readonly #waits: Generator<number, never, void>;
  #delay: number;
  // A session created a moment ago is still queued: the first look waits one delay. A session
  // re-attached after a restart may have finished long ago: look at once.
  #wait: boolean;
  // Its time then includes a person's (or a pause): it says nothing of how long the work takes.
  #waitedOnSomeone = false;
  // Waits run from the previous look's sending (the first from now): a slow answer does not push
  // every later look back by its latency, and a look is never sent before the last is answered.
  #lookedAt: number;
  /** The last answer Jules refused (400): harmless unless the session still waits for one. */
  #refusedMessage: JulesError | undefined;
  /** Plans approved and answers sent (here, or as Jules' activities count them): see MAX_REPLIES_PER_SESSION. */
  #approvals = 0;
  #answers = 0;

  constructor(
    context: FollowContext,
    session: FollowedSession,
    call: CallOptions,
    hooks: WorkerHooks,
    seen: { state?: string | undefined },
  ) {
    this.#c = context;
    this.#s = session;
    this.#call = call;
    this.#hooks = hooks;
    this.#seen = seen;
    this.#since = context.now();
    this.#deadline = this.#since + context.timeoutMs;
    this.#waits = context.polls.waits();
    this.#delay = context.initialPollMs;
    this.#wait = session.created;
    this.#lookedAt = this.#since;
  }

  async run(): Promise<WorkerOutput> {
    for (;;) {
      if (this.#wait) await this.#waitForLook();
      this.#wait = true;
      const session = await this.#look();
      const output = await this.#answerTo(session);
      if (output !== undefined) return output;
      // Judged at the look, not at its answer: an answer that comes late says the session was
      // still working when it was asked, and the next look settles it.
      if (this.#lookedAt > this.#deadline)
        return {
          ok: false,
          reason: `The Jules session ${this.#s.id} did not finish in time (state ${session.state ?? 'unknown'}).`,
          externalId: this.#s.id,
        };
    }
  }

  /** Waits the schedule's next delay from the previous look, unless the run halted meanwhile. */
  async #waitForLook(): Promise<void> {
    const halted = this.#c.halted();
    if (halted !== undefined) throw halted;
    this.#delay = this.#waits.next().value;
    const rest = this.#lookedAt + this.#delay - this.#c.now();
    if (rest > 0) await this.#c.sleep(rest, this.#call.signal);
  }

  /** Reads the session, and notes what its state says of it (and of how long sessions take). */
  async #look(): Promise<JulesSession> {
    const { client, polls } = this.#c;
    this.#lookedAt = this.#c.now();
    const session = await readSession(client, this.#s.id, this.#call, (signal) =>
      this.#c.sleep(this.#delay, signal),
    );
    this.#seen.state = session.state ?? undefined;
    if (WAITING_ON_SOMEONE.has(session.state ?? '')) this.#waitedOnSomeone = true;
    if (session.state !== 'AWAITING_USER_FEEDBACK') this.#refusedMessage = undefined;
    if (
      this.#s.created &&
      !this.#waitedOnSomeone &&
      (session.state === 'COMPLETED' || session.state === 'FAILED')
    )
      // Plus the clock's resolution (1 ms): later first looks are never earlier than this one.
      polls.finished(this.#lookedAt - this.#since + 1);
    return session;
  }

  /** Does what the state calls for: the slot's output when it settles the slot, else a reply or nothing. */
  async #answerTo(session: JulesSession): Promise<WorkerOutput | undefined> {
    switch (session.state) {
      case 'COMPLETED':
        return this.#candidate(session);
      case 'FAILED':
        return this.#failure();
      case 'AWAITING_PLAN_APPROVAL':
        return this.#approvePlan();
      case 'AWAITING_USER_FEEDBACK':
        return this.#relayQuestion();
      default:
        return undefined;
    }
  }

  async #candidate(session: JulesSession): Promise<WorkerOutput> {
    const { client } = this.#c;
    const { task, id } = this.#s;
    // The session's outputs carry its changeSet; the activities are read only when they do not.
    return sessionCandidate(
      session,
      sessionPatch(session, []) === undefined ? await allActivities(client, id, this.#call) : [],
      task.baseCommit,
      id,
    );
  }

  async #failure(): Promise<WorkerOutput> {
    const reason = (await allActivities(this.#c.client, this.#s.id, this.#call))
      .map((a) => a.sessionFailed?.reason)
      .find(Boolean);
    return {
      ok: false,
      reason: sentences(`The Jules session failed${reason ? `: ${clause(reason)}` : ''}`),
      externalId: this.#s.id,
    };
  }

  /** Approves the plan (a person's choice first, under plan review); a vetoed plan ends the slot. */
  async #approvePlan(): Promise<WorkerOutput | undefined> {
    const { client } = this.#c;
    const { task, slot, id } = this.#s;
    const { choose } = this.#hooks;
    const activities = await allActivities(client, id, this.#call);
    // Counted by Jules too: approvals sent before a resume (or by anyone) count.
    this.#approvals = Math.max(
      this.#approvals,
      activities.filter((a) => a.planApproved != null).length,
    );
    if (this.#approvals >= MAX_REPLIES_PER_SESSION) return this.#stuck('plan');
    if (this.#c.planReview && choose !== undefined) {
      const plan = planText(activities);
      const choice = await this.#person(() => choose(planChoice(task, slot, id, plan)));
      if (choice !== 'approve')
        return {
          ok: false,
          reason: `A person vetoed the plan of Jules session ${id}.`,
          externalId: id,
        };
    }
    this.#approvals += 1;
    await client.approvePlan(id, this.#call).catch((error: unknown) => {
      // Approved already (a retried approval whose first reply was lost): the next look shows it.
      if (!(error instanceof JulesError && error.kind === 'bad-request')) throw error;
    });
    return undefined;
  }

  /** Sends the person's answer to the agent's question; with no one to ask, the candidate is discarded. */
  async #relayQuestion(): Promise<WorkerOutput | undefined> {
    const { client } = this.#c;
    const { id } = this.#s;
    const { ask } = this.#hooks;
    const activities = await allActivities(client, id, this.#call);
    const question = activities
      .map((a) => a.agentMessaged?.agentMessage)
      .filter(Boolean)
      .at(-1);
    this.#answers = Math.max(
      this.#answers,
      activities.filter((a) => a.userMessaged != null).length,
    );
    if (this.#refusedMessage !== undefined) throw this.#refusedMessage;
    if (ask !== undefined && question) {
      if (this.#answers >= MAX_REPLIES_PER_SESSION) return this.#stuck('answer');
      this.#answers += 1;
      // The person answers (now, or after a deferred run resumes and re-attaches here).
      await client
        .sendMessage(id, await this.#person(() => ask(question)), this.#call)
        .catch((error: unknown) => {
          // Sent already (a retried message whose first reply was lost), and the session has
          // finished since (400 FAILED_PRECONDITION): the next look shows it. Refused while
          // the session still waits for it, it is an answer Jules will not take.
          if (!(error instanceof JulesError && error.kind === 'bad-request')) throw error;
          this.#refusedMessage = error;
        });
      return undefined;
    }
    return {
      ok: false,
      reason: `The Jules agent stopped to ask${question ? `: "${question}"` : ''}; a candidate that needs help is discarded.`,
      externalId: id,
    };
  }

  /** A person's answer; the time they take moves the session's deadline on. */
  async #person<T>(answer: () => Promise<T>): Promise<T> {
    const asked = this.#c.now();
    const value = await answer();
    this.#deadline += this.#c.now() - asked;
    return value;
  }

  /**
   * A session that waits on someone again after {@link MAX_REPLIES_PER_SESSION} answers (or plan
   * approvals) is stuck, not working: it is archived (best effort) and the candidate red-flagged.
   */
  async #stuck(waitsFor: 'plan' | 'answer'): Promise<WorkerOutput> {
    await this.#c.client.archiveSession(this.#s.id, this.#call).catch(() => undefined);
    return stuckSession(this.#s.id, waitsFor);
  }
}
