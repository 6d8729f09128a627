import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorEnvelope, readBody, sendJson } from './google-http.js';
import {
  branches,
  checkCreate,
  sourceName,
  type FakeAgentContext,
  type FakeAgentScript,
  type FakeFault,
  type FakeJules,
  type FakeJulesSource,
  type FakePageTokens,
  planLimitFault,
} from './fake-jules-model.js';
import { fakePages } from './fake-jules-pages.js';
import { fakeJulesStore } from './fake-jules-store.js';
import { sessionLife, type FakeSession } from './fake-jules-session.js';

export { julesQuotaFault } from './fake-jules-model.js';
export type {
  FakeAgentContext,
  FakeAgentScript,
  FakeFault,
  FakeJules,
  FakeJulesSource,
  FakePageTokens,
} from './fake-jules-model.js';

/** Session ids are this number's successors, after a fixed prefix (Jules' ids are long digit strings). */
const ID_BASE = 594092;

/**
 * A local Jules v1alpha server on 127.0.0.1 with the real routes (colon custom methods included),
 * JSON shapes and Google error envelope. Sessions walk QUEUED → PLANNING → [AWAITING_PLAN_APPROVAL]
 * → IN_PROGRESS → [AWAITING_USER_FEEDBACK] → COMPLETED | FAILED, one step per `sessions.get`, on a
 * deterministic clock; base commits are read from the real git repository behind each source.
 */
export async function startFakeJules(options: {
  apiKey: string;
  sources: readonly FakeJulesSource[];
  agent: (context: FakeAgentContext) => FakeAgentScript | Promise<FakeAgentScript>;
  fault?: (request: { method: string; path: string; count: number }) => FakeFault;
  /** Answer the first activities read of each session with 404, as Jules may right after create. */
  activities404AfterCreate?: boolean;
  /**
   * Simulated work: a session finishes only once this many ms of `clock` have passed since it was
   * created (default 0: one state step per read).
   */
  workMs?: number;
  /** The clock simulated work is measured on (default `performance.now`). */
  clock?: () => number;
  /**
   * The server's wall clock, for sessions' `createTime` and every answer's `Date` header (default
   * `Date.now`): offset it from the client's for a server whose clock disagrees.
   */
  now?: () => number;
  /** Page tokens that misbehave in the session and activity lists (see {@link FakePageTokens}). */
  pageTokens?: FakePageTokens;
  /** Port to listen on (default: any free one). */
  port?: number;
  /**
   * The plan's limits, enforced as Jules does (429 `RESOURCE_EXHAUSTED`, see {@link julesQuotaFault}):
   * sessions not yet COMPLETED or FAILED at once, and sessions created in any 24 hours of `clock`.
   */
  concurrentLimit?: number;
  dailyLimit?: number;
  /**
   * Session list lag: a session is listed (`GET /sessions`) only once this many ms of `clock` have
   * passed since it was created, as a list served from a replica may lag (default 0).
   */
  listLagMs?: number;
  /**
   * A create that reaches Jules late: for the n-th create (1-based) this returns how many ms of
   * `clock` after the request the session comes to exist; the request itself gets no answer (its
   * connection is dropped, as after the client's timeout). Undefined: created at once, answered.
   */
  lateCreate?: (n: number) => number | undefined;
  /** Called when a session exists, before the create call is answered (a test may crash the client here). */
  onSessionCreated?: (session: { id: string; title: string }, count: number) => void;
  /**
   * A file the sessions are kept in: a fake started again on it (after its process was killed) knows
   * every session created before, under the same id, and replays its life from the start.
   */
  store?: string;
}): Promise<FakeJules> {
  const requests: { method: string; path: string }[] = [];
  const sources = [...options.sources];
  const sessions = new Map<string, FakeSession>();
  let created = 0;
  let creates = 0;
  /** Sessions whose create reached Jules late: they come to exist at `at` (of `clock`). */
  const late: { at: number; session: FakeSession }[] = [];
  /** Start times of sessions being created (their agent not answered yet). */
  const creating: number[] = [];
  const clock = options.clock ?? (() => performance.now());
  const wallClock = options.now ?? Date.now;
  const pages = fakePages(options.pageTokens);
  const life = sessionLife({ workMs: options.workMs, clock });
  const { advance, sessionJson, activity } = life;
  const store = options.store === undefined ? undefined : fakeJulesStore(options.store);
  const persist = () =>
    store?.save(
      [...sessions.values()].map((s) => ({
        id: s.id,
        body: s.body,
        context: s.context,
        planApproved: s.body['requirePlanApproval'] !== true,
        messages: s.messages,
      })),
    );
  for (const stored of store?.load() ?? []) {
    const context = { ...stored.context, messages: [...stored.messages] };
    sessions.set(stored.id, {
      id: stored.id,
      body: stored.body,
      context: stored.context,
      script: await options.agent(context),
      state: 'QUEUED',
      step: 0,
      planApproved: stored.planApproved,
      messages: [...stored.messages],
      activities: [],
      createdAt: wallClock(),
      startedAt: clock(),
      activityReads: 0,
    });
    created = Math.max(created, Number(stored.id.slice(-6)) - ID_BASE + 1);
  }
  const sourceJson = async (s: FakeJulesSource) => ({
    name: sourceName(s),
    id: `github/${s.owner}/${s.repo}`,
    githubRepo: {
      owner: s.owner,
      repo: s.repo,
      isPrivate: false,
      defaultBranch: { displayName: s.defaultBranch ?? 'main' },
      branches: (await branches(s)).map((b) => ({ displayName: b })),
    },
  });

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) =>
      sendJson(res, 500, errorEnvelope(500, `fake jules: ${(error as Error).message}`)),
    );
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? '/';
    const mark = target.indexOf('?');
    const query = mark < 0 ? undefined : new URLSearchParams(target.slice(mark + 1));
    const method = req.method ?? 'GET';
    const path = decodeURIComponent(mark < 0 ? target : target.slice(0, mark));
    // Test control, outside the API: what this server answered so far.
    if (path === '/_fake/requests') return sendJson(res, 200, { requests });
    // Every answer says when it was sent, on this server's clock (which may not be the client's).
    res.setHeader('date', new Date(wallClock()).toUTCString());
    requests.push({ method, path });
    arriveLate();
    const fault = options.fault?.({ method, path, count: requests.length });
    if (fault !== undefined) return sendFault(res, fault);
    const key = req.headers['x-goog-api-key'];
    if (key !== options.apiKey) {
      sendJson(res, 401, errorEnvelope(401, 'Request had invalid authentication credentials.'));
      return;
    }
    const body = method === 'POST' ? await readJson(req) : undefined;
    if (body === null) {
      sendJson(res, 400, errorEnvelope(400, 'Invalid JSON payload received.'));
      return;
    }
    const page = (items: unknown[], field: string, defaultSize: number) =>
      pages(path, items, field, defaultSize, query);
    let m: RegExpExecArray | null;
    if (method === 'GET' && path === '/v1alpha/sources')
      return sendJson(res, 200, page(await Promise.all(sources.map(sourceJson)), 'sources', 30));
    if (method === 'GET' && (m = /^\/v1alpha\/sources\/(.+)$/.exec(path)) !== null) {
      const found = sources.find((s) => sourceName(s) === `sources/${m?.[1]}`);
      return found === undefined
        ? sendJson(res, 404, errorEnvelope(404, `Source sources/${m[1]} not found.`))
        : sendJson(res, 200, await sourceJson(found));
    }
    if (method === 'POST' && path === '/v1alpha/sessions')
      return create(res, body as Record<string, unknown>);
    if (method === 'GET' && path === '/v1alpha/sessions') {
      const listed = [...sessions.values()].filter(
        (s) => clock() - s.startedAt >= (options.listLagMs ?? 0),
      );
      return sendJson(res, 200, page(listed.map(sessionJson), 'sessions', 30));
    }
    if (
      (m = /^\/v1alpha\/sessions\/(\d+)(?::(approvePlan|sendMessage|archive|unarchive))?$/.exec(
        path,
      )) !== null
    ) {
      const session = sessions.get(m[1] as string);
      if (session === undefined)
        return sendJson(res, 404, errorEnvelope(404, `Session sessions/${m[1]} not found.`));
      if (method === 'GET' && m[2] === undefined) {
        advance(session);
        return sendJson(res, 200, sessionJson(session));
      }
      if (method === 'POST' && m[2] === 'approvePlan') {
        if (session.state !== 'AWAITING_PLAN_APPROVAL')
          return sendJson(
            res,
            400,
            errorEnvelope(400, 'The session is not awaiting plan approval.'),
          );
        session.activities.push(
          activity(session, 'user', { planApproved: { planId: `plan-${session.id}` } }),
        );
        // A session that keeps planning comes back with a new plan awaiting approval.
        session.planApproved = session.script.keepsPlanning !== true;
        session.state = session.planApproved ? 'IN_PROGRESS' : 'PLANNING';
        return sendJson(res, 200, {});
      }
      if (method === 'POST' && m[2] === 'sendMessage') {
        if (session.state === 'COMPLETED' || session.state === 'FAILED')
          return sendJson(res, 400, {
            error: {
              ...errorEnvelope(400, 'Session is already finished.').error,
              status: 'FAILED_PRECONDITION',
            },
          });
        const prompt = (body as { prompt?: unknown }).prompt;
        if (typeof prompt !== 'string' || prompt === '')
          return sendJson(
            res,
            400,
            errorEnvelope(400, 'prompt is required.', [
              { field: 'prompt', description: 'required' },
            ]),
          );
        session.messages.push(prompt);
        persist();
        session.activities.push(
          activity(session, 'user', { userMessaged: { userMessage: prompt } }),
        );
        if (session.state === 'AWAITING_USER_FEEDBACK') {
          session.script = await options.agent({
            ...session.context,
            messages: [...session.messages],
          });
          session.state = 'IN_PROGRESS';
        }
        return sendJson(res, 200, {});
      }
      if (method === 'POST') return sendJson(res, 200, {});
    }
    if (method === 'GET' && (m = /^\/v1alpha\/sessions\/(\d+)\/activities$/.exec(path)) !== null) {
      const session = sessions.get(m[1] as string);
      if (session === undefined)
        return sendJson(res, 404, errorEnvelope(404, `Session sessions/${m[1]} not found.`));
      session.activityReads += 1;
      if (options.activities404AfterCreate === true && session.activityReads === 1)
        return sendJson(res, 404, errorEnvelope(404, 'Session activities not found.'));
      return sendJson(res, 200, page(session.activities, 'activities', 50));
    }
    sendJson(res, 404, errorEnvelope(404, `No route for ${method} ${path}.`));
  }

  function sendFault(res: ServerResponse, fault: NonNullable<FakeFault>): void {
    sendJson(
      res,
      fault.status,
      errorEnvelope(fault.status, fault.message ?? 'injected fault', [], fault.details),
      fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter },
    );
  }

  /** The plan limit a new session would exceed now, as Jules answers it; undefined when none. */
  const overLimit = (): FakeFault =>
    options.concurrentLimit === undefined && options.dailyLimit === undefined
      ? undefined
      : planLimitFault(
          [...sessions.values()].map((s) => ({ state: s.state, startedAt: s.startedAt })),
          creating,
          { concurrent: options.concurrentLimit, daily: options.dailyLimit },
          clock(),
        );

  /** The late creates whose time has come now exist (looked at on every request and read). */
  function arriveLate(): void {
    const now = clock();
    for (const entry of late.filter((e) => e.at <= now)) {
      late.splice(late.indexOf(entry), 1);
      sessions.set(entry.session.id, entry.session);
      persist();
      options.onSessionCreated?.(
        { id: entry.session.id, title: entry.session.context.title },
        sessions.size,
      );
    }
  }

  async function create(res: ServerResponse, body: Record<string, unknown>): Promise<void> {
    const checked = await checkCreate(body, sources);
    if ('status' in checked) return sendJson(res, checked.status, checked.envelope);
    const limited = overLimit();
    if (limited !== undefined) return sendFault(res, limited);
    // Counted against the limits from here, before anything is awaited.
    const startedAt = clock();
    creating.push(startedAt);
    const { source, startingBranch, baseCommit, prompt } = checked;
    // Numbered before anything is awaited, so concurrent creates never share an id.
    const id = `15481661885092${String(ID_BASE + created++).padStart(6, '0')}`;
    const agentContext: FakeAgentContext = {
      id,
      title: typeof body['title'] === 'string' ? body['title'] : '',
      prompt,
      source: sourceName(source),
      startingBranch,
      baseCommit,
      messages: [],
    };
    const script = await options.agent(agentContext);
    const session: FakeSession = {
      id,
      body,
      context: agentContext,
      script,
      state: 'QUEUED',
      step: 0,
      planApproved: body['requirePlanApproval'] !== true && script.keepsPlanning !== true,
      messages: [],
      activities: [],
      createdAt: wallClock(),
      startedAt,
      activityReads: 0,
    };
    creating.splice(creating.indexOf(startedAt), 1);
    const lateBy = options.lateCreate?.(++creates);
    if (lateBy !== undefined) {
      late.push({
        at: startedAt + lateBy,
        session: {
          ...session,
          startedAt: startedAt + lateBy,
          createdAt: session.createdAt + lateBy,
        },
      });
      arriveLate();
      res.socket?.destroy();
      return;
    }
    sessions.set(id, session);
    persist();
    options.onSessionCreated?.({ id, title: agentContext.title }, sessions.size);
    sendJson(res, 200, sessionJson(session));
  }

  // Not started (a port taken): the error, for the caller to report, not an unhandled event.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1alpha`,
    requests,
    addSource: (source) => void sources.push(source),
    get sessions() {
      arriveLate();
      return new Map(
        [...sessions].map(([id, s]) => [
          id,
          { title: s.context.title, state: s.state, startedAt: s.startedAt },
        ]),
      );
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const text = await readBody(req);
  try {
    return text === '' ? {} : JSON.parse(text);
  } catch {
    return null;
  }
}
