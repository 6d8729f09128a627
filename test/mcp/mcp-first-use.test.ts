import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/tmp.js';
import { text, useMcpClients } from '../helpers/mcp.js';

const tempDir = useTempDirs();
const connect = useMcpClients();

describe('maker_start never simulates silently', () => {
  it('with no worker and no key, refuses, names the ways forward, and creates nothing', async () => {
    const dir = await tempDir();
    const { call } = await connect(dir);
    const refused = await call('maker_start', { idea: 'a todo list CLI' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/No worker was chosen and GEMINI_API_KEY is not set/);
    expect(text(refused)).toMatch(/pass worker "sim" for a simulation/);
    expect(text(refused)).toMatch(/maker demo/);
    // In Gemini CLI the key is an extension setting: the way to set it is named, not `export`.
    expect(text(refused)).toContain('gemini extensions config maker "Gemini API key"');
    expect(text(refused)).not.toMatch(/or say pass/);
    expect(await readdir(dir)).toEqual([]);
  });

  it('maker_resume where no run was ever started says so and how to start one', async () => {
    const dir = await tempDir();
    const { call } = await connect(dir);
    const refused = await call('maker_resume', {});
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe(`No unfinished run in ${dir}. Start one with maker_start.`);
    expect(await readdir(dir)).toEqual([]);
  });

  it('says SIMULATED when it starts, waits on and shows a simulated run', async () => {
    const { call } = await connect(await tempDir());
    const started = await call('maker_start', {
      idea: 'a notes app',
      worker: 'sim',
      runChecks: false,
    });
    expect(text(started)).toMatch(
      /^Started run r[\w-]+ in .* \(SIMULATED: placeholder plans and files, not real work\)\./,
    );
    expect(started.structuredContent).toMatchObject({ simulated: true });
    const runId = (started.structuredContent as { runId: string }).runId;
    const waited = await call('maker_wait', { runId, cursor: 0, seconds: 60 });
    expect(text(waited)).toMatch(/^SIMULATED run r[\w-]+ \("a notes app"\)/);
    expect(text(await call('maker_status', { runId }))).toMatch(/^SIMULATED run /);
  });

  it('refuses simulation settings for a real worker instead of dropping them', async () => {
    const dir = await tempDir();
    const { call } = await connect(dir, { GEMINI_API_KEY: 'AIza-test-key-0123456789' });
    const refused = await call('maker_start', { idea: 'x', worker: 'gemini', sim: { seed: 3 } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(
      /The `sim` settings apply to simulated workers only, not to gemini/,
    );
    expect(await readdir(dir)).toEqual([]);
  });
});
