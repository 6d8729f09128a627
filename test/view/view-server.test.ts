import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SimPlanner, SimWorker } from '../../src/adapters/sim/project-sim.js';
import { currentProcess } from '../../src/adapters/os/process-identity.js';
import { makerStateFile, STATE_FILE_NAME } from '../../src/adapters/state/state-file.js';
import type { MakerEngine } from '../../src/engine/maker-engine.js';
import { answerQuestion } from '../../src/app/answer-question.js';
import { FileSource } from '../../src/surfaces/view/file-source.js';
import type { RunSnapshot } from '../../src/surfaces/view/protocol.js';
import { startViewServer, type ViewHandle } from '../../src/surfaces/view/server.js';
import { engineFor, openWorkspace } from '../../src/app/wiring/wiring.js';
import { baseConfig } from '../helpers/engine.js';
import { useTempDirs } from '../helpers/tmp.js';
import { http, readEvents } from './http.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
const views: ViewHandle[] = [];
afterEach(async () => {
  for (const view of views.splice(0)) await view.close();
});

/** A repository whose sim run stopped at its clarify question (--hitl defer), and a view of it from the files. */
async function deferredRun() {
  const dir = await tempDir();
  const workspace = await openWorkspace(dir, true, workspaceSettings());
  const sim = { seed: 7, clarify: true };
  const engine: MakerEngine = engineFor(
    dir,
    workspace,
    { planner: new SimPlanner(sim), worker: new SimWorker(sim) },
    { secrets: [], env: process.env },
  );
  const runId = await engine.create('a todo app', { ...baseConfig, hitl: 'defer' });
  expect((await engine.run(runId)).status).toBe('awaiting-human');
  const question = (await engine.pendingQuestions(runId))[0];
  if (question === undefined) throw new Error('the sim asked nothing');
  const source = await FileSource.open({
    dir,
    secrets: [],
    pollMs: 50,
    diff: (a, b) => workspace.diff(a, b),
  });
  const view = await startViewServer({ source });
  views.push(view);
  const url = new URL(view.url);
  const token = url.searchParams.get('token') ?? '';
  return { dir, runId, question, view, port: view.port, token };
}

const errorOf = (reply: { body: string }) => (JSON.parse(reply.body) as { error: string }).error;

const answerRequest = (
  token: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
) => ({
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    ...(token === undefined ? {} : { 'x-maker-token': token }),
    ...headers,
  },
  body: JSON.stringify(body),
});

describe('the view server', () => {
  it('serves 127.0.0.1 only, and nothing without the token or with a foreign Host', async () => {
    const { view, port, token } = await deferredRun();
    expect(view.url).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:${port}/\\?token=[A-Za-z0-9_-]{32}$`),
    );
    const paths = ['/', '/events', '/api/snapshot', '/api/node?id=root'];
    // The token with its last character changed (to another one, whatever the token ends with).
    const wrong = `${token.slice(0, -1)}${token.endsWith('x') ? 'y' : 'x'}`;
    for (const path of paths) {
      expect((await http(port, path)).status, path).toBe(403);
      const joiner = path.includes('?') ? '&' : '?';
      expect((await http(port, `${path}${joiner}token=${wrong}`)).status, path).toBe(403);
    }
    for (const host of [
      `evil.example:${port}`,
      `127.0.0.1:${port + 1}`,
      'localhost',
      `127.0.0.1.nip.io:${port}`,
    ])
      expect((await http(port, `/?token=${token}`, { headers: { host } })).status, host).toBe(403);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      const page = await http(port, `/?token=${token}`, { headers: { host } });
      expect(page.status, host).toBe(200);
      expect(page.headers['content-security-policy']).toMatch(/default-src 'none'/);
      expect(page.headers['referrer-policy']).toBe('no-referrer');
    }
  });

  it('answers only a POST carrying the token in its header, from no other origin', async () => {
    const { dir, port, token, runId, question } = await deferredRun();
    const body = { runId, questionId: question.id, answer: '1' };
    const refused: [string, Awaited<ReturnType<typeof http>>][] = [
      [
        'no header, token in the query',
        await http(port, `/api/answer?token=${token}`, answerRequest(undefined, body)),
      ],
      ['a wrong token', await http(port, '/api/answer', answerRequest(`${token}x`, body))],
      [
        'another origin',
        await http(
          port,
          '/api/answer',
          answerRequest(token, body, { origin: 'https://evil.example' }),
        ),
      ],
      [
        'a form post',
        await http(
          port,
          '/api/answer',
          answerRequest(token, body, { 'content-type': 'text/plain' }),
        ),
      ],
      ['a GET', await http(port, '/api/answer', { headers: { 'x-maker-token': token } })],
    ];
    expect(refused.map(([why, r]) => [why, r.status])).toEqual([
      ['no header, token in the query', 403],
      ['a wrong token', 403],
      ['another origin', 403],
      ['a form post', 415],
      ['a GET', 405],
    ]);
    const state = () => makerStateFile(dir).load();
    expect((await state()).runs[runId]?.questions[0]?.answer).toBeUndefined();

    // The same validation as maker answer: a wrong option is refused, naming the options.
    const wrong = await http(port, '/api/answer', answerRequest(token, { ...body, answer: '   ' }));
    expect(wrong.status).toBe(400);
    expect(errorOf(wrong)).toMatch(/not an option.*1 = opt-1/);
    const unknown = await http(
      port,
      '/api/answer',
      answerRequest(token, { ...body, questionId: 'q-nope' }),
    );
    expect(unknown.status).toBe(400);
    expect(errorOf(unknown)).toMatch(/no question "q-nope"/);

    const ok = await http(
      port,
      '/api/answer',
      answerRequest(token, body, { origin: `http://127.0.0.1:${port}` }),
    );
    expect(ok.status).toBe(200);
    expect((JSON.parse(ok.body) as { note: string }).note).toMatch(/maker resume/);
    expect((await state()).runs[runId]?.questions[0]?.answer?.optionId).toBe('opt-1');
    const journal = await readFile(join(dir, 'maker-journal.jsonl'), 'utf8');
    expect(journal.trim().split('\n').at(-1)).toMatch(
      /"type":"question-answered".*"answer":"opt-1"/,
    );
    const again = await http(port, '/api/answer', answerRequest(token, body));
    expect(again.status).toBe(400);
  });

  it('does not answer while a live process holds the workspace, and says who does', async () => {
    const { dir, port, token, runId, question } = await deferredRun();
    // This test process plays a `maker run` holding the lock.
    await writeFile(
      join(dir, `${STATE_FILE_NAME}.lock`),
      `${JSON.stringify({ ...currentProcess(), command: 'run', token: 'held' })}\n`,
    );
    const snapshot = JSON.parse(
      (await http(port, `/api/snapshot?token=${token}`)).body,
    ) as RunSnapshot;
    expect(snapshot.answering.ok).toBe(false);
    expect(snapshot.answering.note).toMatch(/maker run \(pid \d+\)/);
    const refused = await http(
      port,
      '/api/answer',
      answerRequest(token, { runId, questionId: question.id, answer: '1' }),
    );
    expect(refused.status).toBe(409);
    expect((await makerStateFile(dir).load()).runs[runId]?.questions[0]?.answer).toBeUndefined();
  });

  it('streams a snapshot, then what changes in the state file', async () => {
    const { dir, port, token, runId, question } = await deferredRun();
    let snapshotSeen = () => undefined as void;
    const seen = new Promise<void>((r) => (snapshotSeen = r));
    const stream = readEvents(port, `/events?token=${token}`, (e) => {
      if (e.event === 'snapshot') snapshotSeen();
      const questions = (e.data as Partial<RunSnapshot>).questions;
      return e.event === 'run' && questions?.[0]?.answer !== null && questions?.[0] !== undefined;
    });
    // Once the page has its snapshot, another process answers (as maker answer does).
    await seen;
    await answerQuestion(
      { dir, secrets: [], command: 'answer' },
      { questionId: question.id, answer: '2' },
    );
    const events = await stream.events;
    expect(events[0]?.event).toBe('snapshot');
    const snapshot = events[0]?.data as RunSnapshot;
    expect(snapshot.run.id).toBe(runId);
    expect(snapshot.nodes.map((n) => n.id)).toContain('root');
    expect(snapshot.questions[0]?.answer).toBeNull();
    const last = events.at(-1)?.data as RunSnapshot;
    expect(last.questions[0]?.answer).toEqual({ optionId: 'opt-2' });
    expect(events.some((e) => e.event === 'log')).toBe(true);
  });

  it('gives a node’s candidates with their diffs from git', async () => {
    const { port, token } = await deferredRun();
    const detail = JSON.parse((await http(port, `/api/node?token=${token}&id=root`)).body) as {
      votes: {
        name: string;
        candidates: { status: string; value: string | null; flags: unknown[] }[];
      }[];
    };
    expect(detail.votes.map((v) => v.name)).toEqual(['Is it minimal?', 'Split']);
    const split = detail.votes[1]?.candidates ?? [];
    expect(split.find((c) => c.status === 'valid')?.value).toMatch(/^1\. /);
    expect(split.find((c) => c.status === 'flagged')?.flags.length).toBeGreaterThan(0);
    expect((await http(port, `/api/node?token=${token}&id=nope`)).status).toBe(404);
  });

  it('closes by its handle: streams end and the port is free', async () => {
    const { view, port, token } = await deferredRun();
    let snapshotSeen = () => undefined as void;
    const seen = new Promise<void>((r) => (snapshotSeen = r));
    const stream = readEvents(port, `/events?token=${token}`, (e) => {
      if (e.event === 'snapshot') snapshotSeen();
      return false;
    });
    await seen;
    await view.close();
    const events = await stream.events;
    expect(events[0]?.event).toBe('snapshot');
    await expect(http(port, `/?token=${token}`)).rejects.toThrow(/ECONNREFUSED/);
  });
});
