import { describe, expect, it } from 'vitest';
import type { RunSnapshot } from '../../src/surfaces/view/protocol.js';
import { useTempDirs } from '../helpers/tmp.js';
import { text, useMcpClients } from '../helpers/mcp.js';
import { http } from './http.js';

const tempDir = useTempDirs();
const connect = useMcpClients();

describe('the live view from Gemini CLI', () => {
  it('maker_start and maker_status with view: true give the address; the page answers as maker_answer does', async () => {
    const { call } = await connect(await tempDir());

    const started = await call('maker_start', {
      idea: 'a todo app',
      worker: 'sim',
      runChecks: false,
      view: true,
    });
    expect(started.isError).toBeFalsy();
    const { runId, viewUrl } = started.structuredContent as { runId: string; viewUrl: string };
    expect(text(started)).toContain(`Live view`);
    expect(text(started)).toContain(viewUrl);
    const url = new URL(viewUrl);
    expect(url.hostname).toBe('127.0.0.1');
    expect(url.searchParams.get('run')).toBe(runId);
    const port = Number(url.port);
    const token = url.searchParams.get('token') ?? '';
    expect((await http(port, `/${url.search}`)).status).toBe(200);

    // The sim asks at the root; the person answers on the page instead of through the model.
    const waited = await call('maker_wait', { runId, cursor: 0, seconds: 60 });
    expect(text(waited)).toMatch(/questionId="q-root-clarify-0"/);
    const answered = await http(port, '/api/answer', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-maker-token': token },
      body: JSON.stringify({ runId, questionId: 'q-root-clarify-0', answer: 'opt-2' }),
    });
    expect(answered.status).toBe(200);
    const next = await call('maker_wait', { runId, cursor: 1, seconds: 60 });
    expect(text(next)).toMatch(/questionId="q-root-veto"/);
    const snapshot = JSON.parse(
      (await http(port, `/api/snapshot${url.search}`)).body,
    ) as RunSnapshot;
    expect(snapshot.questions[0]).toMatchObject({
      id: 'q-root-clarify-0',
      answer: { optionId: 'opt-2' },
    });
    expect(snapshot.nodes.length).toBeGreaterThan(1);

    const status = await call('maker_status', { runId, view: true });
    const again = (status.structuredContent as { viewUrl: string }).viewUrl;
    expect(new URL(again).port).toBe(url.port);
    expect(text(status)).toMatch(/^Live view/);
    await call('maker_cancel', { runId });
  });
});
