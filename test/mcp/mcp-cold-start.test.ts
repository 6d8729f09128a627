import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { LazyRuns } from '../../src/surfaces/mcp/lazy-runs.js';
import { RunManager } from '../../src/surfaces/mcp/run-manager.js';
import { useTempDirs } from '../helpers/tmp.js';
import { text, useMcpClients } from '../helpers/mcp.js';

const tempDir = useTempDirs();
const connect = useMcpClients();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/**
 * `node --import` of this: every `file:` module the process loads is appended to `log`, one URL a
 * line (a module loader hook, so it sees static and dynamic imports alike).
 */
function moduleLog(log: string): string {
  const hooks = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (url.startsWith('file:')) appendFileSync(${JSON.stringify(log)}, url + '\\n');
  return next(url, context);
}`;
  const register = `import { register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
  return `data:text/javascript,${encodeURIComponent(register)}`;
}

/**
 * What only runs need, by the module comments esbuild writes before each bundled module: none of
 * it may be compiled before a tool call needs a run.
 */
const RUN_ONLY = [
  '// src/engine/maker-engine.ts',
  '// src/surfaces/mcp/run-manager.ts',
  '// src/adapters/git/',
  // What builds a run's roles, loaded only when a run starts (not by a status call).
  '// src/app/workers/gemini-model.ts',
  '// src/app/workers/jules-build.ts',
  '// src/adapters/jules/',
  '// node_modules/@google/genai/',
  '// node_modules/simple-git/',
  '// node_modules/@octokit/',
];

/** The run-only modules inside the bundled files the log names. */
async function runOnlyIn(log: string): Promise<string[]> {
  const files = [
    ...new Set(
      (await readFile(log, 'utf8').catch(() => '')).split('\n').filter((url) => url !== ''),
    ),
  ].map((url) => fileURLToPath(url));
  const found = new Set<string>();
  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    for (const marker of RUN_ONLY) if (source.includes(`\n${marker}`)) found.add(marker);
  }
  return [...found].sort();
}

describe('MCP server cold start', () => {
  it('lists its tools and answers maker_estimate without loading the engine, git, Jules or Gemini; the first call that needs a run loads the engine and git', async () => {
    const dir = await tempDir();
    const log = join(dir, 'modules.log');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', moduleLog(log), join(process.cwd(), 'dist', 'maker-mcp.js')],
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '', MAKER_WORKSPACE: dir },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(transport);
    closers.push(() => client.close());

    expect((await client.listTools()).tools).toHaveLength(7);
    const estimate = (await client.callTool({
      name: 'maker_estimate',
      arguments: { p: 0.99, steps: 1000, target: 0.95 },
    })) as CallToolResult;
    expect(text(estimate)).toMatch(/^k_min = \d+/);
    expect(await runOnlyIn(log)).toEqual([]);

    // The first call that needs a run loads them, from the same bundled files the markers find.
    const status = (await client.callTool({
      name: 'maker_status',
      arguments: {},
    })) as CallToolResult;
    expect(status.isError).toBe(true);
    expect(text(status)).toMatch(/run/i);
    const loaded = await runOnlyIn(log);
    expect(loaded).toEqual(expect.arrayContaining(RUN_ONLY.slice(0, 3)));
    // Not what builds a run's roles: Gemini's and Jules's code wait for a run to start.
    for (const marker of RUN_ONLY.slice(3, 6)) expect(loaded).not.toContain(marker);
  });
});

describe('LazyRuns', () => {
  it('loads the run manager once, on the first call that needs it', async () => {
    const dir = await tempDir();
    let loads = 0;
    const runs = new LazyRuns(() => {
      loads++;
      return Promise.resolve(new RunManager({ workspaceDir: dir, env: {} }));
    }, {});
    const { call } = await connect(runs);
    await call('maker_estimate', { p: 0.9, steps: 10, target: 0.9 });
    expect([loads, runs.loaded]).toEqual([0, false]);
    const [a, b] = await Promise.all([call('maker_status', {}), call('maker_status', {})]);
    expect(text(a)).toBe(text(b));
    await call('maker_start', {
      idea: 'a note',
      worker: 'sim',
      runChecks: false,
      sim: { clarify: false },
    });
    expect([loads, runs.loaded]).toEqual([1, true]);
  });

  it('turns a failed load into an error result saying what to do, and tries again on the next call', async () => {
    const dir = await tempDir();
    let loads = 0;
    const runs = new LazyRuns(() => {
      loads++;
      return loads === 1
        ? Promise.reject(new Error("Cannot find module '/x/dist/chunk-ABC.js'"))
        : Promise.resolve(new RunManager({ workspaceDir: dir, env: {} }));
    }, {});
    const { call } = await connect(runs);
    const failed = await call('maker_status', {});
    expect(failed.isError).toBe(true);
    expect(text(failed)).toMatch(
      /could not load its engine: Cannot find module '\/x\/dist\/chunk-ABC\.js'\. If files of the extension are missing, reinstall it\./,
    );
    expect(runs.loaded).toBe(false);
    const started = await call('maker_start', { idea: 'a note', worker: 'sim', runChecks: false });
    expect(started.isError).toBeFalsy();
    expect(loads).toBe(2);
  });

  it('redacts the configured keys before the engine is loaded, and closes with nothing loaded', async () => {
    // Not shaped like any known key, so only the configured secrets can redact it.
    const key = ['plain', 'secret', 'q'.repeat(12)].join('-');
    const runs = new LazyRuns(() => Promise.reject(new Error(`bad ${key}`)), {
      GEMINI_API_KEY: key,
    });
    const { call } = await connect(runs);
    const failed = await call('maker_status', {});
    expect(text(failed)).not.toContain(key);
    expect(text(failed)).toContain('[redacted]');
    expect(runs.redact(`k ${key}`)).toBe('k [redacted]');
    await expect(runs.close()).resolves.toBeUndefined();
  });
});
