import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { text, useMcpClients } from '../helpers/mcp.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const connect = useMcpClients();

describe('hostile tool arguments', () => {
  // Failed at main: `__proto__` was dropped by the SDK's schemas, so the call went through.
  it.each<[string, string]>([
    ['maker_status', '{"runId":"abc","__proto__":{"polluted":true}}'],
    ['maker_start', '{"idea":"x","worker":"sim","__proto__":{"repo":"../escape"}}'],
    ['maker_answer', '{"runId":"abc","questionId":"q","answer":"a","__proto__":{}}'],
  ])(
    '%s: __proto__ is refused like any unknown key, and nothing is created',
    async (tool, json) => {
      const workspace = await tempDir();
      const { call } = await connect(workspace);
      const refused = await call(tool, JSON.parse(json) as Record<string, unknown>);
      expect(refused.isError).toBe(true);
      expect(text(refused)).toContain('Unrecognized key: "__proto__"');
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      // The same words as for any other unknown key.
      const other = await call(tool, {
        ...(JSON.parse(json.replace('__proto__', 'bogus')) as object),
      });
      expect(text(other)).toContain('Unrecognized key: "bogus"');
    },
  );

  it('a second maker_start on a repository with a run in progress is refused, naming that run', async () => {
    // Failed at main: both started on one engine; the second failed only at landing.
    const workspace = await tempDir();
    await mkdir(join(workspace, 'app'));
    const { call } = await connect(workspace);
    const first = await call('maker_start', {
      idea: 'first',
      worker: 'sim',
      runChecks: false,
      repo: 'app',
    });
    expect(first.isError).toBeFalsy();
    const runId = (first.structuredContent as { runId: string }).runId;
    const second = await call('maker_start', {
      idea: 'second',
      worker: 'sim',
      runChecks: false,
      repo: 'app',
    });
    expect(second.isError).toBe(true);
    expect(text(second)).toContain(`Run ${runId} is in progress`);
    await call('maker_cancel', { runId });
  });
});

describe('oversized JSON-RPC frames', () => {
  it('a frame over the cap is refused before parsing, and the server keeps serving', async () => {
    // Failed at main: a 10 MB frame closed the transport and the server exited.
    const dir = await tempDir();
    const child = spawn(process.execPath, [join(process.cwd(), 'dist', 'maker-mcp.js')], {
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '', MAKER_WORKSPACE: dir },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const next = async () =>
      JSON.parse(((await lines.next()).value as string) ?? 'null') as {
        id?: unknown;
        error?: { code: number; message: string };
        result?: unknown;
      };
    try {
      const huge = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'maker_status', arguments: { runId: 'x'.repeat(12 * 1024 * 1024) } },
      });
      child.stdin.write(`${huge}\n`);
      expect(await next()).toMatchObject({ id: null, error: { code: -32600 } });
      child.stdin.write('not json\n');
      expect(await next()).toMatchObject({ id: null, error: { code: -32700 } });
      child.stdin.write(
        `${JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 't', version: '1' },
          },
        })}\n`,
      );
      expect(await next()).toMatchObject({ id: 2, result: { serverInfo: { name: 'maker' } } });
    } finally {
      child.stdin.end();
      expect(await exited).toBe(0);
    }
  }, 60_000);
});
