import type { FakeAgentContext, FakeAgentScript } from './fake-jules-model.js';

/** One session as the fake keeps it. */
export interface FakeSession {
  readonly id: string;
  readonly body: Record<string, unknown>;
  readonly context: FakeAgentContext;
  script: FakeAgentScript;
  state: string;
  step: number;
  planApproved: boolean;
  readonly messages: string[];
  readonly activities: Record<string, unknown>[];
  /** Wall-clock ms at creation (its `createTime`). */
  readonly createdAt: number;
  /** `clock()` at creation, for simulated work. */
  readonly startedAt: number;
  activityReads: number;
}

const EPOCH = Date.parse('2026-03-01T10:00:00Z');

/**
 * The life of the fake Jules' sessions and their JSON: each walks QUEUED → PLANNING →
 * [AWAITING_PLAN_APPROVAL] → IN_PROGRESS → [AWAITING_USER_FEEDBACK] → COMPLETED | FAILED as it is
 * read, on `clock` when there is simulated work (`workMs`), with times on a deterministic clock
 * that ticks one second per timestamp given out (a session's `createTime` is wall-clock time).
 */
export function sessionLife(options: {
  readonly workMs: number | undefined;
  readonly clock: () => number;
}) {
  let tick = 0;
  const { clock } = options;
  const time = () => new Date(EPOCH + ++tick * 1000).toISOString();

  /**
   * The session's life as of this read: one step per read by default; with simulated work, every
   * step whose time has come (queued for the first 10% of the work, planning until 20%).
   */
  function advance(session: FakeSession): void {
    if ((options.workMs ?? 0) === 0) step(session);
    else while (step(session));
  }

  /** One step of the session's life, if its time has come; false when it stays where it is. */
  function step(session: FakeSession): boolean {
    const script = session.script;
    const due = (share: number) => clock() - session.startedAt >= share * (options.workMs ?? 0);
    switch (session.state) {
      case 'QUEUED':
        if (!due(0.1)) return false;
        session.state = 'PLANNING';
        return true;
      case 'PLANNING':
        if (!due(0.2)) return false;
        session.activities.push(
          activity(session, 'agent', {
            planGenerated: {
              plan: {
                id: `plan-${session.id}`,
                createTime: time(),
                steps: [
                  {
                    id: 's1',
                    index: 0,
                    title: session.context.title,
                    description: session.context.prompt.slice(0, 200),
                  },
                ],
              },
            },
          }),
        );
        session.state = session.planApproved ? 'IN_PROGRESS' : 'AWAITING_PLAN_APPROVAL';
        return true;
      case 'IN_PROGRESS':
        if (!due(1)) return false;
        if (
          script.askFeedback !== undefined &&
          (session.messages.length === 0 || script.keepsAsking === true)
        ) {
          session.activities.push(
            activity(session, 'agent', { agentMessaged: { agentMessage: script.askFeedback } }),
          );
          session.state = 'AWAITING_USER_FEEDBACK';
          return true;
        }
        if (script.fail !== undefined) {
          session.activities.push(
            activity(session, 'system', { sessionFailed: { reason: script.fail } }),
          );
          session.state = 'FAILED';
          return true;
        }
        if (script.patch !== undefined)
          session.activities.push(
            activity(
              session,
              'agent',
              { progressUpdated: { title: 'Code changes ready', description: '' } },
              [{ changeSet: changeSet(session) }],
            ),
          );
        session.activities.push(activity(session, 'system', { sessionCompleted: {} }));
        session.state = 'COMPLETED';
        return true;
      default:
        return false;
    }
  }

  function changeSet(session: FakeSession) {
    return {
      source: session.context.source,
      gitPatch: {
        unidiffPatch: session.script.patch,
        baseCommitId: session.script.baseCommitId ?? session.context.baseCommit,
        suggestedCommitMessage: session.context.title,
      },
    };
  }

  function sessionJson(session: FakeSession) {
    const done =
      session.state === 'COMPLETED' &&
      session.script.patch !== undefined &&
      session.script.patchOnlyInActivities !== true;
    return {
      name: `sessions/${session.id}`,
      id: session.id,
      prompt: session.context.prompt,
      title: session.context.title,
      sourceContext: {
        source: session.context.source,
        githubRepoContext: { startingBranch: session.context.startingBranch },
      },
      state: session.state,
      url: `https://jules.google.com/session/${session.id}`,
      createTime: new Date(session.createdAt).toISOString(),
      updateTime: time(),
      ...(done ? { outputs: [{ changeSet: changeSet(session) }] } : {}),
    };
  }

  function activity(
    session: FakeSession,
    originator: string,
    member: Record<string, unknown>,
    artifacts?: unknown[],
  ) {
    const id = `a${session.activities.length + 1}`;
    return {
      name: `sessions/${session.id}/activities/${id}`,
      id,
      createTime: time(),
      originator,
      description: Object.keys(member)[0] ?? '',
      ...member,
      ...(artifacts === undefined ? {} : { artifacts }),
    };
  }

  return {
    advance,
    sessionJson,
    activity,
  };
}
