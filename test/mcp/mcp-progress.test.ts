import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { CALL_TIMEOUT_MS, text, useMcpClients } from '../helpers/mcp.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const connect = useMcpClients();

describe('maker_wait progress', () => {
  it('sends progress notifications with the client’s progress token while it waits: nodes done, samples, red flags', async () => {
    const { call, client } = await connect(await tempDir());
    const started = await call('maker_start', {
      idea: 'a notes app',
      worker: 'sim',
      runChecks: false,
      sim: { clarify: false },
    });
    const runId = (started.structuredContent as { runId: string }).runId;
    const messages: string[] = [];
    const progress: number[] = [];
    let cursor = 0;
    let waited: CallToolResult = started;
    for (let i = 0; i < 12 && !/: (done|vetoed|failed)\./.test(text(waited)); i++) {
      waited = (await client.callTool(
        { name: 'maker_wait', arguments: { runId, cursor, seconds: 60 } },
        undefined,
        {
          timeout: CALL_TIMEOUT_MS,
          onprogress: (p) => {
            progress.push(p.progress);
            if (p.message !== undefined) messages.push(p.message);
          },
        },
      )) as CallToolResult;
      cursor = (waited.structuredContent as { cursor: number }).cursor;
      for (const [, id] of text(waited).matchAll(/questionId="([^"]+)"/g))
        await call('maker_answer', { runId, questionId: id, answer: 'accept' });
    }
    expect(messages.length).toBeGreaterThan(0);
    expect(messages.at(-1)).toMatch(/^\d+\/\d+ nodes done, \d+ samples, \d+ red flags? \(/);
    const last = /^(\d+)\/(\d+) nodes done, (\d+) samples/.exec(messages.at(-1) ?? '');
    expect(Number(last?.[3])).toBeGreaterThan(0);
    // Progress only grows within a call (the SDK requires it).
    expect(progress.length).toBeGreaterThan(0);
  });
});
