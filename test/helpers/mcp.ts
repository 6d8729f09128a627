import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, expect } from 'vitest';
import { RunManager } from '../../src/surfaces/mcp/run-manager.js';
import { createMakerServer, type Runs } from '../../src/surfaces/mcp/server.js';

/** How long a test's tool call may take: a `maker_wait` holds up to 60 s. */
export const CALL_TIMEOUT_MS = 120_000;

export type Call = (
  name: string,
  args: Record<string, unknown>,
  onProgress?: () => void,
) => Promise<CallToolResult>;

/**
 * MCP clients connected in memory to the maker server, as Gemini CLI connects to it. `connect`
 * takes a workspace (a {@link RunManager} over it, with `env`) or the runs to serve; `close` shuts
 * the server's runs down, as when Gemini CLI quits (repeatable). Every connection is closed after
 * its test.
 */
export function useMcpClients() {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  return async (
    over: string | Runs,
    env: Readonly<Record<string, string | undefined>> = {},
  ): Promise<{ call: Call; close: () => Promise<void>; client: Client; runs: Runs }> => {
    const runs = typeof over === 'string' ? new RunManager({ workspaceDir: over, env }) : over;
    const server = createMakerServer(runs, '0.0.0-test');
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'test', version: '1' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      await runs.close();
      await client.close();
    };
    closers.push(close);
    // Above the SDK's 60 s default: a `maker_wait` of 60 s would otherwise race the client's own
    // timeout on a loaded machine (the server answers at 60 s plus its scheduling delay).
    const call: Call = async (name, args, onProgress) =>
      (await client.callTool({ name, arguments: args }, undefined, {
        timeout: CALL_TIMEOUT_MS,
        ...(onProgress === undefined ? {} : { onprogress: onProgress }),
      })) as CallToolResult;
    return { call, close, client, runs };
  };
}

/** A tool result's text, as the model reads it. */
export const text = (r: CallToolResult): string =>
  r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/**
 * Drives a run through `maker_wait`, answering every question it asks with `accept` (its final
 * veto), until it is done, vetoed or failed; returns the last wait's text.
 */
export async function waitToEnd(call: Call, runId: string): Promise<string> {
  let cursor = 0;
  let waited = '';
  for (let i = 0; i < 12 && !/: (done|vetoed|failed)\./.test(waited); i++) {
    const r = await call('maker_wait', { runId, cursor, seconds: 60 });
    cursor = (r.structuredContent as { cursor: number }).cursor;
    waited = text(r);
    for (const [, id] of waited.matchAll(/questionId="([^"]+)"/g))
      expect(
        (await call('maker_answer', { runId, questionId: id, answer: 'accept' })).isError,
      ).toBeFalsy();
  }
  return waited;
}
