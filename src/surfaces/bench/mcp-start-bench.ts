import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { MakerError } from '../../core/errors.js';

/** Spawning `node -e 0` until it exits: the floor any Node program's cold start stands on. */
function nodeStartMs(): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', () => resolve(performance.now() - started));
  });
}

/**
 * `maker bench mcp-start`: cold starts of the bundled MCP server, from spawning `node` to the
 * answer of `tools/list`, as Gemini CLI starts it (stdio, a fresh process each time), each right
 * after a `node -e 0` (the reference: the ratio of the medians is what a busy machine changes least).
 */
export async function runMcpStartBench(options: { serverPath: string; runs: number }) {
  const workspace = await mkdtemp(join(tmpdir(), 'maker-bench-mcp-'));
  const times: number[] = [];
  const nodeTimes: number[] = [];
  try {
    for (let i = 0; i < options.runs; i++) {
      nodeTimes.push(await nodeStartMs());
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
      if (tools.length === 0)
        throw new MakerError('bench-failed', 'The MCP server (maker mcp) listed no tools.');
    }
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
  const at = (list: number[], q: number) => {
    const sorted = [...list].sort((a, b) => a - b);
    return (
      Math.round(
        (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number) * 10,
      ) / 10
    );
  };
  const medianMs = at(times, 0.5);
  const nodeMedianMs = at(nodeTimes, 0.5);
  return {
    runs: options.runs,
    medianMs,
    p90Ms: at(times, 0.9),
    minMs: at(times, 0),
    maxMs: at(times, 1),
    nodeMedianMs,
    ratio: Math.round((medianMs / nodeMedianMs) * 100) / 100,
  };
}
