import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { RunManager } from '../../src/surfaces/mcp/run-manager.js';
import { createMakerServer } from '../../src/surfaces/mcp/server.js';
import type { RunSnapshot } from '../../src/surfaces/view/protocol.js';
import { useTempDirs } from '../helpers/tmp.js';
import { http } from './http.js';

const tempDir = useTempDirs();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const text = (r: CallToolResult) =>
  r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe('the live view from Gemini CLI', () => {
  it('maker_start and maker_status with view: true give the address; the page answers as maker_answer does', async () => {
    const runs = new RunManager({ workspaceDir: await tempDir(), env: {} });
    const server = createMakerServer(runs, '0.0.0-test');
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'test', version: '1' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    closers.push(async () => {
      await client.close();
      await runs.close();
    });
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult;

    const started = await call('maker_start', { idea: 'a todo app', worker: 'sim', view: true });
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
