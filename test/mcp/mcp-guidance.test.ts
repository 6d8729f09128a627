import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/tmp.js';
import { text, useMcpClients } from '../helpers/mcp.js';

const tempDir = useTempDirs();
const connect = useMcpClients();

async function journalSeqs(dir: string): Promise<number[]> {
  return (await readFile(join(dir, 'maker-journal.jsonl'), 'utf8'))
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as { seq: number }).seq);
}

async function stateSeq(dir: string, runId: string): Promise<number> {
  const state = JSON.parse(await readFile(join(dir, 'maker-state.json'), 'utf8')) as {
    runs: Record<string, { eventSeq: number }>;
  };
  return state.runs[runId]?.eventSeq ?? -1;
}

describe('the MCP tools guide the model', () => {
  it('refuse unknown arguments instead of dropping them, at every level, creating nothing', async () => {
    const dir = await tempDir();
    const { call, client } = await connect(dir);
    for (const [tool, args, unknown] of [
      ['maker_start', { idea: 'x', worker: 'sim', workers: 'sim' }, 'workers'],
      [
        'maker_start',
        { idea: 'x', worker: 'jules-fake', jules: { plan: 'pro', plans: 1 } },
        'plans',
      ],
      ['maker_start', { idea: 'x', worker: 'sim', sim: { seed: 1, speed: 2 } }, 'speed'],
      ['maker_wait', { runId: 'r1', cursor: 0, secs: 5 }, 'secs'],
      ['maker_status', { run: 'r1' }, 'run'],
      ['maker_answer', { runId: 'r1', questionId: 'q', answer: 'a', note: 'x' }, 'note'],
      ['maker_estimate', { p: 0.99, steps: 10, target: 0.9, k: 3 }, 'k'],
    ] as const) {
      const refused = await call(tool, args);
      expect(refused.isError, `${tool} ${unknown}`).toBe(true);
      expect(text(refused)).toContain(unknown);
    }
    expect(await readdir(dir)).toEqual([]);
    // The schemas the model sees say so too.
    const { tools } = await client.listTools();
    for (const tool of tools) expect(tool.inputSchema['additionalProperties']).toBe(false);
  });

  it('a run cancelled by the server shutting down says maker_resume continues it; resume answers with the new status', async () => {
    const dir = await tempDir();
    const first = await connect(dir);
    const started = await first.call('maker_start', {
      idea: 'a notes app',
      worker: 'sim',
      runChecks: false,
    });
    const runId = (started.structuredContent as { runId: string }).runId;
    // The run waits on its clarify question when Gemini CLI quits.
    expect(text(await first.call('maker_wait', { runId, cursor: 0, seconds: 60 }))).toMatch(
      /questionId="q-root-clarify-0"/,
    );
    await first.close();

    const second = await connect(dir);
    for (const tool of ['maker_wait', 'maker_status']) {
      const shown = await second.call(tool, {
        runId,
        ...(tool === 'maker_wait' ? { cursor: 1 } : {}),
      });
      expect(text(shown)).toMatch(new RegExp(`run ${runId} \\("a notes app"\\): cancelled\\.`));
      expect(text(shown)).toContain(
        `because the maker server shut down, e.g. when Gemini CLI quit); everything done so far is saved. To continue it, call maker_resume with runId="${runId}", then maker_wait.`,
      );
    }
    const resumed = await second.call('maker_resume', { runId });
    expect(resumed.isError).toBeFalsy();
    expect(text(resumed)).toMatch(
      new RegExp(
        `^Resumed run ${runId}\\.\\nSIMULATED run ${runId} \\("a notes app"\\): running\\.`,
      ),
    );
    expect(resumed.structuredContent).toMatchObject({ status: 'running', active: true });
  });

  it('a pending question carries the cursor to wait with after answering', async () => {
    const dir = await tempDir();
    const { call } = await connect(dir);
    const started = await call('maker_start', {
      idea: 'a notes app',
      worker: 'sim',
      runChecks: false,
    });
    const runId = (started.structuredContent as { runId: string }).runId;
    const waited = await call('maker_wait', { runId, cursor: 0, seconds: 60 });
    const cursor = (waited.structuredContent as { cursor: number }).cursor;
    expect(text(waited)).toMatch(/questionId="q-root-clarify-0"/);
    expect(text(waited)).toContain(
      `After maker_answer, call maker_wait with runId="${runId}" and cursor=${cursor}.`,
    );
  });

  it('the journal and the state file agree on the cursor, across a shutdown and a resume', async () => {
    const dir = await tempDir();
    const first = await connect(dir);
    const started = await first.call('maker_start', {
      idea: 'a notes app',
      worker: 'sim',
      runChecks: false,
    });
    const runId = (started.structuredContent as { runId: string }).runId;
    await first.call('maker_wait', { runId, cursor: 0, seconds: 60 });
    await first.close();
    expect(await stateSeq(dir, runId)).toBe(Math.max(...(await journalSeqs(dir))));

    const second = await connect(dir);
    await second.call('maker_resume', { runId });
    let last: CallToolResult | undefined;
    for (let i = 0; i < 10; i++) {
      last = await second.call('maker_wait', { runId, cursor: i + 100, seconds: 60 });
      for (const [, id, kind] of text(last).matchAll(/questionId="([^"]+)" \((\w+)\)/g))
        await second.call('maker_answer', {
          runId,
          questionId: id,
          answer: kind === 'clarify' ? '1' : 'accept',
        });
      if (/: done\./.test(text(last))) break;
    }
    expect(text(last as CallToolResult)).toMatch(/: done\./);
    await second.close();
    const seqs = await journalSeqs(dir);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(await stateSeq(dir, runId)).toBe(Math.max(...seqs));
  });
});
