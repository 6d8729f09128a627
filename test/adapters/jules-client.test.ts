import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import {
  JulesClient,
  JulesError,
  retryAfterMs,
  sessionPatch,
} from '../../src/adapters/jules/client.js';
import { GitWorkspace } from '../../src/adapters/git/git-workspace.js';
import {
  julesQuotaFault,
  startFakeJules,
  type FakeAgentScript,
  type FakeFault,
  type FakeJules,
} from '../../src/offline/fake-jules.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const KEY = ['jules', 'k'.repeat(30)].join('-');
let fake: FakeJules | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const PATCH =
  'diff --git a/hello.txt b/hello.txt\nnew file mode 100644\n--- /dev/null\n+++ b/hello.txt\n@@ -0,0 +1 @@\n+hello\n';

async function setup(
  agent: () => FakeAgentScript = () => ({ patch: PATCH }),
  options: {
    fault?: (r: { method: string; path: string; count: number }) => FakeFault;
    activities404AfterCreate?: boolean;
  } = {},
) {
  const dir = await tempDir();
  await GitWorkspace.open(dir, { create: true });
  execFileSync('git', ['branch', 'maker/r1/n-0'], { cwd: dir });
  fake = await startFakeJules({
    apiKey: KEY,
    sources: [{ owner: 'me', repo: 'app', gitDir: `${dir}/.git` }],
    agent,
    ...options,
  });
  const slept: number[] = [];
  const client = new JulesClient({
    apiKey: KEY,
    baseUrl: fake.baseUrl,
    sleep: (ms) => (slept.push(ms), Promise.resolve()),
    random: () => 0.5,
  });
  return { dir, client, slept, fake };
}

const request = {
  prompt: 'Add hello.txt',
  title: 'maker r1 n-0 cand-0',
  source: 'sources/github/me/app',
  startingBranch: 'maker/r1/n-0',
  requirePlanApproval: false,
};

async function untilDone(client: JulesClient, id: string) {
  for (let i = 0; i < 20; i++) {
    const session = await client.getSession(id);
    if (
      session.state === 'COMPLETED' ||
      session.state === 'FAILED' ||
      session.state?.startsWith('AWAITING')
    )
      return session;
  }
  throw new Error('no terminal state');
}

describe('JulesClient against the fake Jules server', () => {
  it('lists sources, creates a session on a branch, polls it to COMPLETED, and takes its changeSet', async () => {
    const { client, dir } = await setup();
    const sources = await client.listSources();
    expect(sources.items.map((s) => s.name)).toEqual(['sources/github/me/app']);
    expect((await client.getSource('sources/github/me/app')).githubRepo?.repo).toBe('app');
    const created = await client.createSession(request);
    expect(created.state).toBe('QUEUED');
    expect(created.id).toMatch(/^\d{19,20}$/);
    const done = await untilDone(client, created.id);
    expect(done.state).toBe('COMPLETED');
    const activities = await client.listActivities(created.id);
    const candidate = sessionPatch(done, activities.items);
    expect(candidate?.patch).toBe(PATCH);
    expect(candidate?.baseCommitId).toBe(
      execFileSync('git', ['rev-parse', 'maker/r1/n-0'], { cwd: dir, encoding: 'utf8' }).trim(),
    );
    const listed = await client.listSessions({ pageSize: 1 });
    expect(listed.items.map((s) => s.title)).toEqual(['maker r1 n-0 cand-0']);
  });

  it('falls back to the last changeSet artifact when outputs have none', async () => {
    const { client } = await setup(() => ({ patch: PATCH, patchOnlyInActivities: true }));
    const created = await client.createSession(request);
    const done = await untilDone(client, created.id);
    expect(done.outputs ?? []).toHaveLength(0);
    expect(sessionPatch(done, (await client.listActivities(created.id)).items)?.patch).toBe(PATCH);
  });

  it('walks plan approval and user feedback, and reports failures', async () => {
    const { client } = await setup(() => ({ patch: PATCH, askFeedback: 'Which file name?' }));
    const created = await client.createSession({ ...request, requirePlanApproval: true });
    expect((await untilDone(client, created.id)).state).toBe('AWAITING_PLAN_APPROVAL');
    await client.approvePlan(created.id);
    expect((await untilDone(client, created.id)).state).toBe('AWAITING_USER_FEEDBACK');
    const question = (await client.listActivities(created.id)).items.find((a) => a.agentMessaged)
      ?.agentMessaged?.agentMessage;
    expect(question).toBe('Which file name?');
    await client.sendMessage(created.id, 'hello.txt');
    expect((await untilDone(client, created.id)).state).toBe('COMPLETED');
    await fake?.close();
    const failing = await setup(() => ({ fail: 'Could not build' }));
    const session = await failing.client.createSession(request);
    const failed = await untilDone(failing.client, session.id);
    expect(failed.state).toBe('FAILED');
    expect(
      (await failing.client.listActivities(session.id)).items.some(
        (a) => a.sessionFailed?.reason === 'Could not build',
      ),
    ).toBe(true);
  });

  it('retries 429 honouring Retry-After and 5xx with backoff, then succeeds', async () => {
    const { client, slept } = await setup(undefined, {
      fault: ({ count }) =>
        count === 1 ? { status: 429, retryAfter: '7' } : count === 2 ? { status: 503 } : undefined,
    });
    expect((await client.listSources()).items).toHaveLength(1);
    expect(slept).toEqual([7000, 1000]); // Retry-After, then the first backoff step (jitter pinned at ½)
  });

  it('tolerates the brief 404 on a new session’s activities', async () => {
    const { client, slept } = await setup(undefined, { activities404AfterCreate: true });
    const created = await client.createSession(request);
    expect((await client.listActivities(created.id)).items).toEqual([]);
    expect(slept).toHaveLength(1);
  });

  it('types its errors, with the API’s field violations, and never shows the key', async () => {
    const { client, fake: server } = await setup();
    const bad = await client
      .createSession({ ...request, startingBranch: 'nope' })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(JulesError);
    expect(bad).toMatchObject({
      kind: 'bad-request',
      status: 400,
      fieldViolations: [
        {
          field: 'session.source_context.github_repo_context.starting_branch',
          description: 'not found',
        },
      ],
    });
    const wrongKey = new JulesClient({
      apiKey: 'jules-wrong-key-123456789',
      baseUrl: server.baseUrl,
    });
    const auth = await wrongKey.listSources().catch((e: unknown) => e);
    expect(auth).toMatchObject({ kind: 'auth', status: 401, isRetryable: false });
    expect(String((auth as Error).message)).toMatch(/JULES_API_KEY/);
    expect(String((auth as Error).message)).not.toContain('jules-wrong-key-123456789');
    const missing = await client.getSession('123').catch((e: unknown) => e);
    expect(missing).toMatchObject({ kind: 'not-found', status: 404 });
  });

  it('never retries a create whose outcome is unknown, and retries reads through a gateway error', async () => {
    const {
      client,
      fake: server,
      slept,
    } = await setup(undefined, {
      fault: ({ method, count }) =>
        method === 'POST' && count === 1
          ? { status: 503 }
          : method === 'GET' && count === 2
            ? { status: 502 }
            : undefined,
    });
    const lost = await client.createSession(request).catch((e: unknown) => e);
    expect(lost).toMatchObject({ kind: 'server', status: 503, outcomeUnknown: true });
    expect((lost as Error).message).toMatch(/Whether it was carried out is unknown\.$/);
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(slept).toEqual([]);
    expect((await client.listSources()).items).toHaveLength(1);
    expect(slept).toEqual([500]);
    const refused = await client
      .createSession({ ...request, startingBranch: 'nope' })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ kind: 'bad-request', outcomeUnknown: false });
  });

  it('tells a 429 to a create apart: concurrent limit, daily limit (with when it frees up), or a rate limit to wait out', async () => {
    const answers = [
      julesQuotaFault('concurrent'),
      julesQuotaFault('daily', { retryAfterS: 7200 }),
      { status: 429, retryAfter: '2' },
    ];
    const { client, slept } = await setup(undefined, {
      fault: ({ method, count }) => (method === 'POST' ? answers[count - 1] : undefined),
    });
    await expect(client.createSession(request)).rejects.toMatchObject({
      kind: 'concurrent-limit',
      message:
        'Jules POST /sessions failed with 429: You are currently at your concurrent task limit. Wait for a running task to finish.',
    });
    const daily = await client.createSession(request).catch((e: unknown) => e);
    expect(daily).toMatchObject({ kind: 'daily-limit' });
    expect((daily as { resumeAt: Date }).resumeAt.getTime() - Date.now()).toBeGreaterThan(
      7_100_000,
    );
    // A plain rate limit is waited out (Retry-After 2 s), and the create then goes through.
    expect((await client.createSession(request)).state).toBe('QUEUED');
    expect(slept).toEqual([2000]);
  });

  it('waits out a Retry-After up to the cap, reporting the wait; a longer one stops, saying when to resume', async () => {
    const retryAfter = ['30', '3600'];
    const { fake: server } = await setup(undefined, {
      fault: ({ count }) =>
        count <= 2 ? { status: 429, retryAfter: retryAfter[count - 1] ?? '0' } : undefined,
    });
    const now = Date.parse('2026-11-23T09:00:00Z');
    const slept: number[] = [];
    const waits: { service: string; reason: string; until: string }[] = [];
    const client = new JulesClient({
      apiKey: KEY,
      baseUrl: server.baseUrl,
      sleep: (ms) => (slept.push(ms), Promise.resolve()),
      now: () => now,
      random: () => 0.5,
    });
    const onWait = (w: { service: string; reason: string; until: Date }) => {
      waits.push({ ...w, until: w.until.toISOString() });
      return () => undefined;
    };
    const stopped = await client.listSources({}, { onWait }).catch((e: unknown) => e);
    expect(slept).toEqual([30_000]);
    expect(waits).toEqual([
      {
        service: 'jules',
        reason:
          'Jules is failing (429 injected fault, Retry-After 30 s) since 2026-11-23T09:00:00.000Z; retrying until it answers, for at most 10 min.',
        until: '2026-11-23T09:00:30.000Z',
      },
    ]);
    expect(stopped).toMatchObject({ kind: 'unavailable', resumeAt: new Date(now + 3_600_000) });
    expect((stopped as Error).message).toBe(
      'Jules asked MAKER to wait 60 min (Retry-After 3600 s), longer than the 60 s it waits. The state is saved; run maker resume after 2026-11-23T10:00:00.000Z: it re-attaches every session.',
    );
  });

  it('stops once every call has failed for the outage tolerance; an answer in between starts the count again', async () => {
    let down = true;
    const { fake: server } = await setup(undefined, {
      fault: () => (down ? { status: 503 } : undefined),
    });
    let now = 0;
    const client = new JulesClient({
      apiKey: KEY,
      baseUrl: server.baseUrl,
      sleep: (ms) => ((now += ms), Promise.resolve()),
      now: () => now,
      random: () => 1,
      outageMs: 100_000,
    });
    const error = await client.listSources().catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'unavailable' });
    expect((error as Error).message).toMatch(
      /^Jules is unavailable: every call has failed for 100 s, since 1970-01-01T00:00:00\.000Z \(the outage limit is 100 s\)\. Last error: 503 injected fault\. The state is saved; run maker resume when Jules is back/,
    );
    expect(now).toBe(100_000);
    down = false;
    expect((await client.listSources()).items).toHaveLength(1);
    down = true;
    const started = now;
    await expect(client.listSources()).rejects.toMatchObject({ kind: 'unavailable' });
    expect(now - started).toBe(100_000);
  });

  it('joins API messages into its own without doubled punctuation', async () => {
    const { fake: server } = await setup(undefined, {
      fault: () => ({ status: 403, message: 'The caller does not have permission.' }),
    });
    const error = await new JulesClient({ apiKey: KEY, baseUrl: server.baseUrl })
      .listSources()
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'Jules GET /sources failed with 403: The caller does not have permission. Check JULES_API_KEY (Jules settings page) and that the Jules GitHub app can see the repository.',
    );
  });

  it('honours AbortSignal', async () => {
    const { client } = await setup();
    await expect(client.listSources({}, { signal: AbortSignal.abort() })).rejects.toThrow(/abort/i);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(
      retryAfterMs(new Date(Date.UTC(2026, 0, 1, 0, 0, 10)).toUTCString(), Date.UTC(2026, 0, 1)),
    ).toBe(10_000);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});
