import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { SimPlanner, SimWorker } from '../../src/adapters/sim/project-sim.js';
import { makerStateFile } from '../../src/adapters/state/state-file.js';
import { MakerEngine } from '../../src/engine/maker-engine.js';
import { openWorkspace } from '../../src/app/wiring/wiring.js';
import { baseConfig } from '../helpers/engine.js';
import { useTempDirs } from '../helpers/tmp.js';
import { CALL_TIMEOUT_MS, text, useMcpClients } from '../helpers/mcp.js';
import { workspaceSettings } from '../helpers/settings.js';

const tempDir = useTempDirs();
const connect = useMcpClients();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('the maker MCP server', () => {
  it('lists its tools with schemas', async () => {
    const { client } = await connect(await tempDir());
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'maker_answer',
      'maker_cancel',
      'maker_estimate',
      'maker_resume',
      'maker_start',
      'maker_status',
      'maker_wait',
    ]);
    expect(tools.find((t) => t.name === 'maker_start')?.inputSchema.required).toEqual(['idea']);
  });

  it('runs a sim run to the veto question, relays it in text, and lands it on the answer', async () => {
    const dir = await tempDir();
    const { call } = await connect(dir);
    const started = await call('maker_start', {
      idea: 'a CSV to JSON converter',
      worker: 'sim',
      runChecks: false,
    });
    expect(started.isError).toBeFalsy();
    const runId = (started.structuredContent as { runId: string }).runId;
    expect(text(started)).toContain(`runId="${runId}"`);
    let progress = 0;
    let cursor = 0;
    const asked: string[] = [];
    let waited = started;
    for (let i = 0; i < 12 && !/: (done|vetoed|failed)\./.test(text(waited)); i++) {
      waited = await call('maker_wait', { runId, cursor, seconds: 60 }, () => (progress += 1));
      cursor = (waited.structuredContent as { cursor: number }).cursor;
      for (const [, id, kind] of text(waited).matchAll(/questionId="([^"]+)" \((\w+)\)/g)) {
        asked.push(`${id}:${kind}`);
        const answer = kind === 'clarify' ? 'a small command-line tool' : 'accept';
        expect((await call('maker_answer', { runId, questionId: id, answer })).isError).toBeFalsy();
      }
    }
    expect(progress).toBeGreaterThan(0);
    // The simulated demo asks for a clarification, and the final veto is relayed with its options.
    expect(asked).toEqual(['q-root-clarify-0:clarify', 'q-root-veto:veto']);
    expect(text(waited)).toMatch(/: done\./);
    expect(text(waited)).toMatch(/Result landed on main/);
    expect(
      execFileSync('git', ['grep', '-l', 'a small command-line tool', 'main'], {
        cwd: dir,
        encoding: 'utf8',
      }),
    ).not.toBe('');
    const status = await call('maker_status', { runId });
    expect(text(status)).toMatch(/^root \[done, branch\]/m);
  });

  it('runs a Jules run over the Jules protocol (jules-fake) with the plan’s limits kept in the run', async () => {
    const dir = await tempDir();
    const { call } = await connect(dir);
    const started = await call('maker_start', {
      idea: 'a CSV to JSON converter',
      worker: 'jules-fake',
      jules: { plan: 'free', planReview: false },
      sim: { clarify: false },
    });
    expect(started.isError).toBeFalsy();
    const runId = (started.structuredContent as { runId: string }).runId;
    let cursor = 0;
    let waited = started;
    for (let i = 0; i < 12 && !/: (done|vetoed|failed)\./.test(text(waited)); i++) {
      waited = await call('maker_wait', { runId, cursor, seconds: 60 });
      cursor = (waited.structuredContent as { cursor: number }).cursor;
      for (const [, id] of text(waited).matchAll(/questionId="([^"]+)" \((\w+)\)/g))
        await call('maker_answer', { runId, questionId: id, answer: '1' });
    }
    // The free plan's 15 sessions a day run out before this tree is done: the run says so.
    expect(text(waited)).toMatch(/: failed\./);
    expect(text(waited)).toMatch(/, 15 jules-fake sessions,/);
    expect(text(waited)).toMatch(/Jules session budget is spent: 15 sessions.*maker resume/);
  });

  it('shows a run’s waits on Jules, with until when, in maker_status and maker_wait; maker_start keeps jules.outageSeconds', async () => {
    const dir = await tempDir();
    // A run another process drives, waiting out a Jules outage (as its state file says).
    const workspace = await openWorkspace(dir, true, workspaceSettings());
    const store = makerStateFile(dir);
    const engine = new MakerEngine({
      workspace,
      roles: { planner: new SimPlanner({ seed: 1 }), worker: new SimWorker({ seed: 1 }) },
      store,
    });
    const runId = await engine.create('a tiny tool', { ...baseConfig, worker: 'jules' });
    const state = await engine.state();
    const until = new Date(Date.now() + 50_000).toISOString();
    const run = state.runs[runId];
    if (run === undefined) throw new Error('no run');
    run.waits = [
      {
        id: 'jules-1',
        service: 'jules',
        reason: 'Jules is failing (503) since 2026-11-23T09:00:00.000Z; retrying.',
        since: new Date().toISOString(),
        until,
      },
    ];
    await store.save(state);
    const { call } = await connect(dir);
    const line = new RegExp(
      `Waiting for jules until ${until.slice(11, 19)} UTC \\(in \\d+ s\\): Jules is failing \\(503\\)`,
    );
    const status = await call('maker_status', { runId });
    expect(text(status)).toMatch(line);
    expect(status.structuredContent).toMatchObject({ waits: [{ service: 'jules', until }] });
    expect(text(await call('maker_wait', { runId, seconds: 1 }))).toMatch(line);
    const started = await call('maker_start', {
      idea: 'another tool',
      repo: 'other',
      worker: 'jules-fake',
      jules: { outageSeconds: 90 },
      sim: { clarify: false },
    });
    expect(started.isError).toBeFalsy();
    const other = (await makerStateFile(join(dir, 'other')).load()).runs[
      (started.structuredContent as { runId: string }).runId
    ];
    expect(other?.config.workerOptions?.['outageSeconds']).toBe(90);
    await call('maker_cancel', { runId: (started.structuredContent as { runId: string }).runId });
  });

  it('says what the jules worker needs when its key is missing', async () => {
    const { call } = await connect(await tempDir(), {
      GEMINI_API_KEY: 'AIza-test-key-long-enough',
    });
    const noKey = await call('maker_start', { idea: 'x', worker: 'jules' });
    expect(noKey.isError).toBe(true);
    expect(text(noKey)).toMatch(/JULES_API_KEY.*gemini extensions config maker "Jules API key"/);
    const misplaced = await call('maker_start', {
      idea: 'x',
      worker: 'sim',
      runChecks: false,
      jules: { plan: 'pro' },
    });
    expect(misplaced.isError).toBe(true);
    expect(text(misplaced)).toMatch(
      /The `jules` settings apply to the jules and jules-fake workers only, not to/,
    );
  });

  it('says what to do when something is wrong, as isError results', async () => {
    const dir = await tempDir();
    const { call } = await connect(dir, { GEMINI_API_KEY: '' });
    const noKey = await call('maker_start', { idea: 'x' });
    expect(noKey.isError).toBe(true);
    expect(text(noKey)).toMatch(/GEMINI_API_KEY/);
    const unknown = await call('maker_status', { runId: 'r-nope' });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toMatch(/No run "r-nope"/);
    const badArgs = await call('maker_wait', { runId: 5 });
    expect(badArgs.isError).toBe(true);
    const impossible = await call('maker_estimate', { p: 0.4, steps: 10, target: 0.9 });
    expect(impossible.isError).toBe(true);
    expect(text(impossible)).toMatch(/No k reaches the target/);
    const estimate = await call('maker_estimate', { p: 0.9978, steps: 1048575, target: 0.95 });
    expect(text(estimate)).toMatch(/^k_min = 3/);
  });

  it('keeps a second server off a workspace another live process owns', async () => {
    const dir = await tempDir();
    const first = await connect(dir);
    await first.call('maker_start', { idea: 'first', worker: 'sim', runChecks: false });
    // A second server in another process would see a live pid; simulate with a lock held by our parent.
    const { writeFile } = await import('node:fs/promises');
    const other = await tempDir();
    await writeFile(join(other, 'maker-state.json.lock'), `${process.ppid}\n`);
    const second = await connect(other);
    const refused = await second.call('maker_start', {
      idea: 'second',
      worker: 'sim',
      runChecks: false,
    });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/Another maker process \(pid \d+\) is working on this workspace/);
  });

  it('speaks only MCP on stdout as a bundled stdio server', async () => {
    const dir = await tempDir();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(process.cwd(), 'dist', 'maker-mcp.js')],
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '', MAKER_WORKSPACE: dir },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(transport);
    closers.push(() => client.close());
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(7);
    const started = (await client.callTool({
      name: 'maker_start',
      arguments: { idea: 'stdio run', worker: 'sim', runChecks: false },
    })) as CallToolResult;
    expect(started.isError).toBeFalsy();
    const runId = (started.structuredContent as { runId: string }).runId;
    const waited = (await client.callTool(
      { name: 'maker_wait', arguments: { runId, cursor: 0, seconds: 60 } },
      undefined,
      { timeout: CALL_TIMEOUT_MS },
    )) as CallToolResult;
    expect(text(waited)).toMatch(/q-root-veto|running/);
  });
});

describe('the maker MCP server, more', () => {
  it('drives several runs at once in one process', async () => {
    const dir = await tempDir();
    const { call } = await connect(dir);
    const ids = await Promise.all(
      ['first idea', 'second idea'].map(async (idea, i) => {
        const started = await call('maker_start', {
          idea,
          repo: i === 0 ? '.' : 'other',
          worker: 'sim',
          runChecks: false,
          sim: { seed: i + 1, clarify: false },
        });
        return (started.structuredContent as { runId: string }).runId;
      }),
    );
    expect(new Set(ids).size).toBe(2);
    const finish = async (runId: string) => {
      for (let i = 0; i < 10; i++) {
        const waited = await call('maker_wait', { runId, cursor: i, seconds: 60 });
        for (const [, id] of text(waited).matchAll(/questionId="([^"]+)"/g))
          await call('maker_answer', { runId, questionId: id, answer: 'accept' });
        if (/: (done|vetoed|failed)\./.test(text(waited))) return text(waited);
      }
      return 'unfinished';
    };
    const [a, b] = await Promise.all(ids.map(finish));
    // Both landed, each in its repository (runs created at the same moment share one state load).
    expect(`${a}\n${b}`.match(/: done\./g)).toHaveLength(2);
  });

  it('writes nothing but JSON-RPC to stdout, even while a run works', async () => {
    const dir = await tempDir();
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [join(process.cwd(), 'dist', 'maker-mcp.js')], {
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '', MAKER_WORKSPACE: dir },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.resume();
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: {
        name: 'maker_start',
        arguments: { idea: 'noisy?', worker: 'sim', runChecks: false },
      },
    });
    send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'maker_wait', arguments: { runId: 'x', seconds: 1 } },
    });
    // Until the three answers are out (an event, with a generous ceiling; not a fixed sleep).
    await expect
      .poll(() => out.split('\n').filter((l) => l !== '').length, { timeout: 60_000 })
      .toBeGreaterThanOrEqual(3);
    child.kill('SIGTERM');
    await new Promise((resolve) => child.on('exit', resolve));
    const lines = out.split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
  });
});

describe('maker_cancel and maker_resume', () => {
  it('cancels a run, keeps its state, and resumes it to the end', async () => {
    const dir = await tempDir();
    const { call } = await connect(dir);
    const started = await call('maker_start', {
      idea: 'cancel me',
      worker: 'sim',
      runChecks: false,
    });
    const runId = (started.structuredContent as { runId: string }).runId;
    const waited = await call('maker_wait', { runId, cursor: 0, seconds: 60 });
    expect(text(waited)).toMatch(/questionId="q-root-clarify-0"/);
    const cancelled = await call('maker_cancel', { runId });
    expect(text(cancelled)).toMatch(/is cancelled\. maker_resume continues it/);
    const status = await call('maker_status', { runId });
    expect(text(status)).toMatch(/: cancelled/);
    const resumed = await call('maker_resume', { runId });
    expect(resumed.isError).toBeFalsy();
    let last = resumed;
    for (let i = 1; i < 10 && !/: done\./.test(text(last)); i++) {
      last = await call('maker_wait', { runId, cursor: i, seconds: 60 });
      for (const [, id, kind] of text(last).matchAll(/questionId="([^"]+)" \((\w+)\)/g))
        await call('maker_answer', {
          runId,
          questionId: id,
          answer: kind === 'clarify' ? '1' : 'accept',
        });
    }
    expect(text(last)).toMatch(/: done\./);
    const nothing = await call('maker_resume', {});
    expect(nothing.isError).toBe(true);
    expect(text(nothing)).toMatch(/No unfinished run/);
  });
});
