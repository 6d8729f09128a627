import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/**
 * `maker bench mcp-start`: cold starts of the bundled MCP server, from spawning `node` to the
 * answer of `tools/list`, as Gemini CLI starts it (stdio, a fresh process each time).
 */
export async function runMcpStartBench(options: { serverPath: string; runs: number }) {
  const workspace = await mkdtemp(join(tmpdir(), 'maker-bench-mcp-'));
  const times: number[] = [];
  try {
    for (let i = 0; i < options.runs; i++) {
      const started = performance.now();
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [options.serverPath],
        cwd: workspace,
        env: { PATH: process.env['PATH'] ?? '', MAKER_WORKSPACE: workspace },
        stderr: 'ignore',
      });
      const client = new Client({ name: 'maker-bench', version: '1' });
      await client.connect(transport);
      const { tools } = await client.listTools();
      times.push(performance.now() - started);
      await client.close();
      if (tools.length === 0) throw new Error('The server listed no tools.');
    }
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(
      (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number) * 10,
    ) / 10;
  return { runs: options.runs, medianMs: at(0.5), p90Ms: at(0.9), minMs: at(0), maxMs: at(1) };
}
